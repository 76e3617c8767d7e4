import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { iso, isoOrNull } from '../../core/format.js';
import type { KeyRing } from '../../core/key-ring.js';
import type { Queryable, Tx } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CreateWebhookBody, UpdateWebhookBody, WebhookSchema } from './schemas.js';
import { SECRET_OVERLAP_HOURS } from './schemas.js';
import { generateWebhookSecret } from './secrets.js';
import { type DeliveryStatus, webhookAttempts, webhookDeliveries, webhookSubscriptions } from './tables.js';

export type WebhookApi = Static<typeof WebhookSchema>;
type Row = typeof webhookSubscriptions.$inferSelect;
type CreateInput = Static<typeof CreateWebhookBody>;
type UpdateInput = Static<typeof UpdateWebhookBody>;

const repo = tenantRepo(webhookSubscriptions);
/**
 * Subscriptions the webhook API shows and changes: not the `ucp` targets checkouts make for agent
 * platforms (platform-deliveries.ts), which are no one's subscription.
 */
const listed = ne(webhookSubscriptions.format, 'ucp');
const DAY_MS = 24 * 60 * 60 * 1000;
const OVERLAP_MS = SECRET_OVERLAP_HOURS * 60 * 60 * 1000;

interface Stats {
  lastDeliveryAt: Date | null;
  lastDeliveryStatus: DeliveryStatus | null;
  recentFailureCount: number;
}

/**
 * Subscriptions of the tenant (all, or the one `id`) with their delivery stats, newest first.
 * Failures are attempts with an error or without a 2xx status, counted over the 24 h before `now`.
 */
async function selectWithStats(db: Queryable, tenantId: string, now: Date, id?: string) {
  const s = webhookSubscriptions;
  const since = new Date(now.getTime() - DAY_MS);
  // Written out with qualified names: Drizzle renders a column of a single-table select without
  // its table, which would make `tenant_id = tenant_id` compare the subquery's row with itself.
  // Each subquery names the tenant too, so on Citus the whole read stays in the tenant's shard.
  const mine = sql`tenant_id = ${tenantId}::uuid and subscription_id = "webhook_subscriptions"."id"`;
  const rows = await db
    .select({
      row: s,
      lastDeliveryAt: sql`(select max(last_attempt_at) from webhook_deliveries where ${mine})`.mapWith(
        webhookDeliveries.lastAttemptAt,
      ),
      lastDeliveryStatus: sql<DeliveryStatus | null>`(select status from webhook_deliveries
        where ${mine} and last_attempt_at is not null order by last_attempt_at desc limit 1)`,
      recentFailureCount: sql`(select count(*) from webhook_attempts
        where ${mine} and attempted_at > ${since}
          and (error is not null or response_status is null or response_status < 200 or response_status > 299))`.mapWith(
        Number,
      ),
    })
    .from(s)
    .where(tenantWhere(s, tenantId, listed, id === undefined ? undefined : eq(s.id, id)))
    .orderBy(desc(s.createdAt), desc(s.id));
  return rows.map((r) => present(r.row, r));
}

function present(row: Row, stats: Stats): WebhookApi {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    format: row.format === 'acp' ? 'acp' : 'native',
    isActive: row.isActive,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    lastDeliveryAt: isoOrNull(stats.lastDeliveryAt),
    recentFailureCount: stats.recentFailureCount,
    lastDeliveryStatus: stats.lastDeliveryStatus,
  };
}

export function listWebhooks(db: Queryable, tenantId: string, now: Date): Promise<WebhookApi[]> {
  return selectWithStats(db, tenantId, now);
}

export async function getWebhook(
  db: Queryable,
  tenantId: string,
  id: string,
  now: Date,
): Promise<WebhookApi | undefined> {
  return (await selectWithStats(db, tenantId, now, id))[0];
}

export async function webhookExists(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(tenantWhere(webhookSubscriptions, tenantId, listed, eq(webhookSubscriptions.id, id)));
  return row !== undefined;
}

/** Creates an active subscription; the plain secret is returned once and stored only encrypted. */
export async function insertWebhook(
  tx: Tx,
  tenantId: string,
  input: CreateInput,
  ring: KeyRing,
  now: Date,
): Promise<{ webhook: WebhookApi; secret: string }> {
  const secret = generateWebhookSecret();
  const row = await repo.insert(tx, tenantId, {
    id: uuidv7(),
    url: input.url,
    events: input.events,
    isActive: true,
    format: input.format ?? 'native',
    agentProfileUrl: null,
    secretCiphertext: ring.seal('webhook_secret', secret),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  });
  return {
    webhook: present(row, { lastDeliveryAt: null, lastDeliveryStatus: null, recentFailureCount: 0 }),
    secret,
  };
}

const lockRow = (tx: Tx, tenantId: string, id: string) =>
  tx
    .select()
    .from(webhookSubscriptions)
    .where(tenantWhere(webhookSubscriptions, tenantId, listed, eq(webhookSubscriptions.id, id)))
    .for('update')
    .then((rows) => rows[0]);

type Editable = Pick<Row, 'url' | 'events' | 'isActive' | 'format'>;
const editable = (row: Row): Editable => ({
  url: row.url,
  events: row.events,
  isActive: row.isActive,
  format: row.format,
});

/**
 * Applies the given fields; undefined when the id is not this tenant's. Returns the editable
 * fields before and after (for the audit diff), never the secret.
 */
export async function updateWebhookRow(
  tx: Tx,
  tenantId: string,
  id: string,
  input: UpdateInput,
  now: Date,
): Promise<{ before: Editable; after: Editable; webhook: WebhookApi } | undefined> {
  const current = await lockRow(tx, tenantId, id);
  if (!current) return undefined;
  const patch: Partial<Editable> = {};
  if (input.url !== undefined) patch.url = input.url;
  if (input.events !== undefined) patch.events = input.events;
  if (input.isActive !== undefined) patch.isActive = input.isActive;
  if (input.format !== undefined) patch.format = input.format;
  await repo.update(tx, tenantId, id, { ...patch, updatedAt: now });
  const webhook = await getWebhook(tx, tenantId, id, now);
  if (!webhook) return undefined;
  return { before: editable(current), after: { ...editable(current), ...patch }, webhook };
}

/** Deletes the subscription with its deliveries and attempts (so pending retries are gone too). */
export async function deleteWebhookRow(tx: Tx, tenantId: string, id: string): Promise<Editable | undefined> {
  const current = await lockRow(tx, tenantId, id);
  if (!current) return undefined;
  await tx
    .delete(webhookAttempts)
    .where(tenantWhere(webhookAttempts, tenantId, eq(webhookAttempts.subscriptionId, id)));
  await tx
    .delete(webhookDeliveries)
    .where(tenantWhere(webhookDeliveries, tenantId, eq(webhookDeliveries.subscriptionId, id)));
  await repo.remove(tx, tenantId, id);
  return editable(current);
}

/**
 * A new current secret; the old one becomes the previous, signing beside it for 24 hours (a
 * previous secret still in its window is replaced: only one previous is kept).
 */
export async function rotateSecretRow(
  tx: Tx,
  tenantId: string,
  id: string,
  ring: KeyRing,
  now: Date,
): Promise<{ id: string; secret: string; previousSecretExpiresAt: Date } | undefined> {
  const current = await lockRow(tx, tenantId, id);
  if (!current) return undefined;
  const secret = generateWebhookSecret();
  const previousSecretExpiresAt = new Date(now.getTime() + OVERLAP_MS);
  await repo.update(tx, tenantId, id, {
    secretCiphertext: ring.seal('webhook_secret', secret),
    previousSecretCiphertext: current.secretCiphertext,
    previousSecretExpiresAt,
    updatedAt: now,
  });
  return { id, secret, previousSecretExpiresAt };
}

/**
 * The secrets a delivery at `now` is signed with, decrypted: the current one, then the previous
 * one while its overlap window lasts. Empty when the subscription does not exist. Inactive
 * subscriptions still have secrets: whether to deliver is the caller's decision.
 */
export async function activeSigningSecrets(
  db: Queryable,
  tenantId: string,
  subscriptionId: string,
  now: Date,
  ring: KeyRing,
): Promise<string[]> {
  const [row] = await db
    .select({
      current: webhookSubscriptions.secretCiphertext,
      previous: webhookSubscriptions.previousSecretCiphertext,
      expiresAt: webhookSubscriptions.previousSecretExpiresAt,
    })
    .from(webhookSubscriptions)
    .where(and(tenantWhere(webhookSubscriptions, tenantId), eq(webhookSubscriptions.id, subscriptionId)));
  if (!row?.current) return [];
  const secrets = [ring.open('webhook_secret', row.current)];
  if (row.previous && row.expiresAt && row.expiresAt.getTime() > now.getTime()) {
    secrets.push(ring.open('webhook_secret', row.previous));
  }
  return secrets;
}
