import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { getTenant } from '../tenants/index.js';
import { type DeliveryApi, enqueueTestDelivery, replayDelivery } from './delivery/log.js';
import type { CreateWebhookBody, UpdateWebhookBody } from './schemas.js';
import {
  deleteWebhookRow,
  insertWebhook,
  rotateSecretRow,
  updateWebhookRow,
  type WebhookApi,
  webhookExists,
} from './service.js';
import { assertWebhookUrl, isLoopbackUrl, type LoopbackPolicy } from './url-safety.js';

// The webhook subscription operations. Secrets are encrypted at rest (secrets.ts); a new one is
// in the operation's result only, and never in an audit entry.

export interface CreatedWebhook {
  webhook: WebhookApi;
  secret: string;
}

/** The tenant's loopback policy (its setting, in the sandbox), read only for a loopback URL. */
async function loopbackPolicy(
  deps: ServiceDeps,
  ctx: OperationContext,
  url: string,
): Promise<LoopbackPolicy> {
  if (deps.config.appEnv !== 'sandbox') return 'production';
  if (!isLoopbackUrl(url)) return 'off';
  return (await getTenant(deps.db, ctx.tenantId))?.allowLoopbackWebhooks ? 'allowed' : 'off';
}

const assertTarget = async (deps: ServiceDeps, ctx: OperationContext, url: string) =>
  assertWebhookUrl(url, deps.config.webhookAllowPrivateTargets, await loopbackPolicy(deps, ctx, url));

/** POST /webhooks: HTTPS to a public address (checked before anything is written), known event types. */
export async function createWebhook(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: Static<typeof CreateWebhookBody>,
  key: OperationKey<CreatedWebhook>,
): Promise<CreatedWebhook> {
  await assertTarget(deps, ctx, input.url);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const created = await insertWebhook(u.tx, ctx.tenantId, input, deps.keyRing, u.now);
    await u.audit({
      action: 'webhook.create',
      resourceType: 'webhook',
      resourceId: created.webhook.id,
      details: { url: created.webhook.url, events: created.webhook.events, format: created.webhook.format },
    });
    return created;
  });
}

/** PATCH /webhooks/{id}: URL, events, active flag; the audit entry holds the changed fields. */
export async function updateWebhook(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { webhookId: string; changes: Static<typeof UpdateWebhookBody> },
  key: OperationKey<WebhookApi>,
): Promise<WebhookApi> {
  const changes = input.changes;
  if (changes.url !== undefined) await assertTarget(deps, ctx, changes.url);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const result = await updateWebhookRow(u.tx, ctx.tenantId, input.webhookId, changes, u.now);
    if (!result) throw notFound('Webhook');
    await u.audit({
      action: 'webhook.update',
      resourceType: 'webhook',
      resourceId: result.webhook.id,
      details: diffChanges(result.before, result.after),
    });
    return result.webhook;
  });
}

/** DELETE /webhooks/{id}: with its delivery history; pending retries are cancelled. */
export function deleteWebhook(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { webhookId: string },
  key: OperationKey<null>,
): Promise<null> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const removed = await deleteWebhookRow(u.tx, ctx.tenantId, input.webhookId);
    if (!removed) throw notFound('Webhook');
    await u.audit({
      action: 'webhook.delete',
      resourceType: 'webhook',
      resourceId: input.webhookId,
      details: { url: removed.url, events: removed.events },
    });
    return null;
  });
}

export interface RotatedSecret {
  id: string;
  secret: string;
  previousSecretExpiresAt: Date;
}

/** POST /webhooks/{id}/rotate-secret: a new secret; the previous one still signs for the overlap. */
export function rotateWebhookSecret(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { webhookId: string },
  key: OperationKey<RotatedSecret>,
): Promise<RotatedSecret> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const rotated = await rotateSecretRow(u.tx, ctx.tenantId, input.webhookId, deps.keyRing, u.now);
    if (!rotated) throw notFound('Webhook');
    await u.audit({
      action: 'webhook.rotate_secret',
      resourceType: 'webhook',
      resourceId: rotated.id,
      details: { previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() },
    });
    return rotated;
  });
}

/** POST /webhooks/{id}/deliveries/{deliveryId}/replay: re-enqueued with a fresh attempt cycle. */
export function replayWebhookDelivery(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { webhookId: string; deliveryId: string },
  key: OperationKey<DeliveryApi>,
): Promise<DeliveryApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const delivery = await replayDelivery(u.tx, ctx.tenantId, input.webhookId, input.deliveryId, u.now);
    if (!delivery) throw notFound('Delivery');
    await u.audit({
      action: 'webhook.replay',
      resourceType: 'webhook',
      resourceId: input.webhookId,
      details: { deliveryId: input.deliveryId, eventType: delivery.eventType },
    });
    u.deliveriesQueued();
    return delivery;
  });
}

/** POST /webhooks/{id}/test: a `webhook.test` delivery to this subscription only. */
export function sendTestEvent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { webhookId: string },
  key: OperationKey<DeliveryApi>,
): Promise<DeliveryApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    if (!(await webhookExists(u.tx, ctx.tenantId, input.webhookId))) throw notFound('Webhook');
    const delivery = await enqueueTestDelivery(u.tx, ctx.tenantId, input.webhookId, u.now, ctx.requestId);
    await u.audit({
      action: 'webhook.test',
      resourceType: 'webhook',
      resourceId: input.webhookId,
      details: { deliveryId: delivery.id },
    });
    u.deliveriesQueued();
    return delivery;
  });
}
