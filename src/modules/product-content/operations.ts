import canonicalize from 'canonicalize';
import { and, eq, ne, notInArray } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { AuditAction } from '../../unit-of-work/index.js';
import {
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { productCrud } from '../catalog/index.js';
import type { PatchContentBody, PatchLocaleBody, PutLocaleBody } from './schemas.js';
import { searchVectorOf } from './search-vector.js';
import { readContent, readVersion, type StoredContent } from './service.js';
import {
  type ContentDocument,
  type LocaleFields,
  productContent,
  productContentMeta,
  productContentVersions,
} from './tables.js';
import { checkLocaleFields } from './validation.js';

type PutLocale = Static<typeof PutLocaleBody>;
type PatchLocale = Static<typeof PatchLocaleBody>;
type PatchContent = Static<typeof PatchContentBody>;

const meta = productContentMeta;
const pc = productContent;

const slugTaken = (slug: string) =>
  new AppError('conflict', `slug ${slug} is already another product's`, [
    { field: 'slug', rule: 'unique', message: `slug ${slug} is already another product's` },
  ]);

/** Equal as JSON, whatever the order of keys (jsonb keeps its own). */
const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
};

/**
 * The product's content row, created (published, no slug, version 0) if it has none, locked until
 * the transaction ends: changes to one product's content are applied and versioned one by one.
 */
async function lockContent(u: UnitOfWork, tenantId: string, productId: string): Promise<StoredContent> {
  if (!(await productCrud.service.get(u.tx, tenantId, productId))) throw notFound('Product');
  await u.tx
    .insert(meta)
    .values({
      tenantId,
      productId,
      slug: null,
      status: 'published',
      version: 0,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .onConflictDoNothing();
  await u.tx
    .select({ productId: meta.productId })
    .from(meta)
    .where(tenantWhere(meta, tenantId, eq(meta.productId, productId)))
    .for('update');
  const stored = await readContent(u.tx, tenantId, productId);
  if (!stored) throw new Error(`product content ${productId} missing after its insert`);
  return stored;
}

async function writeDocument(
  tx: Queryable,
  tenantId: string,
  stored: StoredContent,
  next: ContentDocument,
  now: Date,
) {
  const { productId } = stored;
  if (next.slug !== null) {
    const [other] = await tx
      .select({ productId: meta.productId })
      .from(meta)
      .where(tenantWhere(meta, tenantId, and(eq(meta.slug, next.slug), ne(meta.productId, productId))));
    if (other) throw slugTaken(next.slug);
  }
  try {
    await tx
      .update(meta)
      .set({ slug: next.slug, status: next.status, version: stored.version + 1, updatedAt: now })
      .where(tenantWhere(meta, tenantId, eq(meta.productId, productId)));
  } catch (err) {
    // Another product took the slug after the check (its transaction committed first).
    if (next.slug !== null && isUniqueViolation(err)) throw slugTaken(next.slug);
    throw err;
  }
  const locales = Object.keys(next.locales);
  await tx
    .delete(pc)
    .where(
      tenantWhere(
        pc,
        tenantId,
        eq(pc.productId, productId),
        locales.length ? notInArray(pc.locale, locales) : undefined,
      ),
    );
  for (const locale of locales) {
    const fields = next.locales[locale] as LocaleFields;
    if (same(fields, stored.document.locales[locale])) continue;
    const searchVector = searchVectorOf(locale, fields);
    await tx
      .insert(pc)
      .values({ tenantId, productId, locale, ...fields, searchVector, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [pc.tenantId, pc.productId, pc.locale],
        set: { ...fields, searchVector, updatedAt: now },
      });
  }
}

/**
 * The one write of product content: under the product's lock, `edit` makes the next document
 * from the current one; unless it is the same, it is written as the next version, kept in the
 * history and audited (`before`/`after` of what changed). Returns the content as it is now.
 */
function changeContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<StoredContent>,
  productId: string,
  change: { kind: 'put' | 'patch' | 'settings' | 'restore'; action: AuditAction; details?: object },
  edit: (current: ContentDocument, u: UnitOfWork) => Promise<ContentDocument> | ContentDocument,
): Promise<StoredContent> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const stored = await lockContent(u, ctx.tenantId, productId);
    const next = await edit(stored.document, u);
    for (const fields of Object.values(next.locales)) checkLocaleFields(fields);
    if (stored.version > 0 && same(next, stored.document)) return stored;
    await writeDocument(u.tx, ctx.tenantId, stored, next, u.now);
    const version = stored.version + 1;
    await u.tx.insert(productContentVersions).values({
      tenantId: ctx.tenantId,
      productId,
      version,
      change: change.kind,
      actorKeyId: ctx.keyId,
      document: next,
      createdAt: u.now,
    });
    await u.audit({
      action: change.action,
      resourceType: 'product',
      resourceId: productId,
      details: { ...change.details, version, ...documentDiff(stored.document, next) },
    });
    return { productId, document: next, version, updatedAt: u.now };
  });
}

/** The parts of the document that changed: slug, status, and each locale added, changed or removed. */
function documentDiff(before: ContentDocument, after: ContentDocument) {
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const field of ['slug', 'status'] as const)
    if (!same(before[field], after[field])) {
      out.before[field] = before[field];
      out.after[field] = after[field];
    }
  for (const locale of new Set([...Object.keys(before.locales), ...Object.keys(after.locales)])) {
    const [a, b] = [before.locales[locale] ?? null, after.locales[locale] ?? null];
    if (same(a, b)) continue;
    out.before[`locales.${locale}`] = a;
    out.after[`locales.${locale}`] = b;
  }
  return out;
}

const emptyLocale = (title: string): LocaleFields => ({
  title,
  description: null,
  media: [],
  brand: null,
  gtin: null,
  mpn: null,
  condition: null,
  category: null,
  attributes: [],
});

/** PUT /admin/products/{id}/content/{locale}: the locale's content replaced whole (fields left out are emptied). */
export function putLocaleContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { productId: string; locale: string; body: PutLocale },
  key: OperationKey<StoredContent>,
): Promise<StoredContent> {
  const { productId, locale, body } = input;
  const fields = { ...emptyLocale(body.title), ...body } as LocaleFields;
  return changeContent(
    deps,
    ctx,
    key,
    productId,
    { kind: 'put', action: 'product_content.update', details: { locale } },
    (doc) => ({
      ...doc,
      locales: { ...doc.locales, [locale]: fields },
    }),
  );
}

/** PATCH /admin/products/{id}/content/{locale}: the given fields of an existing locale. */
export function patchLocaleContent(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { productId: string; locale: string; body: PatchLocale },
  key: OperationKey<StoredContent>,
): Promise<StoredContent> {
  const { productId, locale, body } = input;
  return changeContent(
    deps,
    ctx,
    key,
    productId,
    { kind: 'patch', action: 'product_content.update', details: { locale } },
    (doc) => {
      const current = doc.locales[locale];
      if (!current) throw notFound(`Content in locale ${locale}`);
      return { ...doc, locales: { ...doc.locales, [locale]: { ...current, ...body } as LocaleFields } };
    },
  );
}

/** PATCH /admin/products/{id}/content: the slug and status, which every locale shares. */
export function patchContentSettings(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { productId: string; body: PatchContent },
  key: OperationKey<StoredContent>,
): Promise<StoredContent> {
  const { productId, body } = input;
  return changeContent(
    deps,
    ctx,
    key,
    productId,
    { kind: 'settings', action: 'product_content.update' },
    (doc) => ({
      ...doc,
      ...(body.slug !== undefined ? { slug: body.slug } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
    }),
  );
}

/** POST /admin/products/{id}/content/versions/{version}/restore: that version, written as the next one. */
export function restoreContentVersion(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { productId: string; version: number },
  key: OperationKey<StoredContent>,
): Promise<StoredContent> {
  const { productId, version } = input;
  return changeContent(
    deps,
    ctx,
    key,
    productId,
    { kind: 'restore', action: 'product_content.restore', details: { restoredVersion: version } },
    async (_doc, u) => {
      const document = await readVersion(u.tx, ctx.tenantId, productId, version);
      if (!document) throw notFound(`Version ${version} of the product's content`);
      return document;
    },
  );
}
