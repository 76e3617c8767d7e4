import { and, asc, eq, gt, inArray, or, type SQL } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CrudService } from '../../unit-of-work/index.js';
import type { Charge } from './price-engine/index.js';
import type { ChargeInput, ProductCreate, ProductSchema, ProductUpdate } from './schemas.js';
import { offers, planChangeRules, planLinks, priceRules, products } from './tables.js';
import { checkTiers, claimId, type Reference, stillReferenced } from './validation.js';

export type ProductApi = Static<typeof ProductSchema>;
type CreateInput = Static<typeof ProductCreate>;
type UpdateInput = Static<typeof ProductUpdate>;
export type ProductRow = typeof products.$inferSelect;

const repo = tenantRepo(products);

export function presentProduct(row: ProductRow): ProductApi {
  const { tenantId: _t, createdAt, updatedAt, charges, ...rest } = row;
  return {
    ...rest,
    charges: charges.map((c) =>
      c.kind === 'passthrough'
        ? { id: c.id, name: c.name, kind: 'passthrough', chargeModel: null, tiers: [] }
        : { id: c.id, name: c.name, kind: 'modeled', chargeModel: c.chargeModel, tiers: c.tiers },
    ),
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
  };
}

function toCharges(input: readonly Static<typeof ChargeInput>[]): Charge[] {
  const ids = new Set<string>();
  return input.map((c, i) => {
    const id = c.id ?? uuidv7();
    if (ids.has(id))
      throw validationFailed(`charges.${i}.id`, 'unique', `charges.${i}.id repeats another charge's id`);
    ids.add(id);
    if ((c.kind ?? 'modeled') === 'passthrough') {
      if (c.chargeModel || c.tiers) {
        throw validationFailed(
          `charges.${i}`,
          'passthrough',
          `charges.${i} is passthrough: omit chargeModel and tiers`,
        );
      }
      return { id, name: c.name, kind: 'passthrough' };
    }
    if (!c.chargeModel)
      throw validationFailed(`charges.${i}.chargeModel`, 'required', `charges.${i}.chargeModel is required`);
    if (!c.tiers) throw validationFailed(`charges.${i}.tiers`, 'required', `charges.${i}.tiers is required`);
    return {
      id,
      name: c.name,
      kind: 'modeled',
      chargeModel: c.chargeModel,
      tiers: checkTiers(c.chargeModel, c.tiers, `charges.${i}.tiers`),
    };
  });
}

function checkBilling(type: ProductApi['type'], billingInterval: string | null) {
  if (type === 'subscription' && !billingInterval) {
    throw validationFailed(
      'billingInterval',
      'required',
      'billingInterval is required for subscription products',
    );
  }
  if (type === 'one_time' && billingInterval) {
    throw validationFailed(
      'billingInterval',
      'forbidden',
      'billingInterval must be null for one_time products',
    );
  }
}

type ReferringTable = typeof priceRules | typeof offers | typeof planLinks | typeof planChangeRules;

/** What refers to a product, or to some of its charges (price rules, offers, plan links and rules). */
async function references(
  tx: Queryable,
  tenantId: string,
  productId: string,
  chargeIds?: string[],
): Promise<Reference[]> {
  const lookups: [ReferringTable, string, SQL | undefined][] = chargeIds
    ? chargeIds.length === 0
      ? []
      : [
          [priceRules, 'price rule', inArray(priceRules.chargeId, chargeIds)],
          [
            planLinks,
            'plan link',
            or(inArray(planLinks.sourceChargeId, chargeIds), inArray(planLinks.targetChargeId, chargeIds)),
          ],
        ]
    : [
        [priceRules, 'price rule', eq(priceRules.productId, productId)],
        [offers, 'offer', eq(offers.productId, productId)],
        [
          planLinks,
          'plan link',
          or(eq(planLinks.sourceProductId, productId), eq(planLinks.targetProductId, productId)),
        ],
        [
          planChangeRules,
          'plan change rule',
          or(eq(planChangeRules.fromProductId, productId), eq(planChangeRules.toProductId, productId)),
        ],
      ];
  const found: Reference[] = [];
  // One statement at a time: they share the transaction's one connection.
  for (const [table, resource, condition] of lookups) {
    const rows = await tx
      .select({ id: table.id })
      .from(table)
      .where(tenantWhere(table, tenantId, condition));
    found.push(...rows.map((r) => ({ resource, id: r.id })));
  }
  return found;
}

export const productService: CrudService<ProductApi, CreateInput, UpdateInput> = {
  async list(db, tenantId) {
    return (await repo.list(db, tenantId)).map(presentProduct);
  },
  async get(db, tenantId, id) {
    const row = await repo.get(db, tenantId, id);
    return row && presentProduct(row);
  },
  async create(tx, tenantId, input, now) {
    checkBilling(input.type, input.billingInterval ?? null);
    const id = await claimId((x) => repo.get(tx, tenantId, x), input.id, uuidv7);
    const row = await repo.insert(tx, tenantId, {
      id,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      family: input.family ?? null,
      rank: input.rank ?? null,
      billingInterval: input.billingInterval ?? null,
      currency: input.currency,
      active: input.active ?? true,
      requiresShipping: input.requiresShipping ?? false,
      entitlements: input.entitlements ?? {},
      charges: toCharges(input.charges),
      createdAt: now,
      updatedAt: now,
    });
    return presentProduct(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await repo.get(tx, tenantId, id);
    if (!before) return undefined;
    const type = patch.type ?? before.type;
    const billingInterval =
      patch.billingInterval === undefined ? before.billingInterval : patch.billingInterval;
    checkBilling(type, billingInterval);
    const charges = patch.charges ? toCharges(patch.charges) : undefined;
    if (charges) {
      const kept = new Set(charges.map((c) => c.id));
      const dropped = before.charges.filter((c) => !kept.has(c.id)).map((c) => c.id);
      const refs = await references(tx, tenantId, id, dropped);
      if (refs.length > 0) throw stillReferenced('A removed charge', refs);
    }
    const { charges: _input, ...fields } = patch;
    const after = await repo.update(tx, tenantId, id, {
      ...fields,
      ...(charges ? { charges } : {}),
      updatedAt: now,
    });
    return after && { before: presentProduct(before), after: presentProduct(after) };
  },
  async remove(tx, tenantId, id) {
    const row = await repo.get(tx, tenantId, id);
    if (!row) return undefined;
    const refs = await references(tx, tenantId, id);
    if (refs.length > 0) throw stillReferenced('The product', refs);
    await repo.remove(tx, tenantId, id);
    return presentProduct(row);
  },
};

export async function activeProducts(db: Queryable, tenantId: string): Promise<ProductRow[]> {
  return (await repo.list(db, tenantId)).filter((p) => p.active);
}

/**
 * The ids of the tenant's active products after `after` (by id, ascending), at most `limit`: a
 * keyset page, for reading a whole catalog a page at a time (the product feed) in constant memory.
 */
export async function activeProductIdsAfter(
  db: Queryable,
  tenantId: string,
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .select({ id: products.id })
    .from(products)
    .where(
      tenantWhere(
        products,
        tenantId,
        and(eq(products.active, true), after === null ? undefined : gt(products.id, after)),
      ),
    )
    .orderBy(asc(products.id))
    .limit(limit);
  return rows.map((r) => r.id);
}
