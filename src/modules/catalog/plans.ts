import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { presentedReads, tenantRepo } from '../../db/tenant-repo.js';
import type { CrudService } from '../../unit-of-work/index.js';
import type { PlanChangeRule } from './price-engine/index.js';
import type { ProductRow } from './products.js';
import type {
  PlanChangeRuleCreate,
  PlanChangeRuleSchema,
  PlanChangeRuleUpdate,
  PlanLinkCreate,
  PlanLinkSchema,
  PlanLinkUpdate,
} from './schemas.js';
import { planChangeRules, planLinks, products } from './tables.js';
import { claimId } from './validation.js';

const linkRepo = tenantRepo(planLinks);
const ruleRepo = tenantRepo(planChangeRules);
const productRepo = tenantRepo(products);

type PlanLinkApi = Static<typeof PlanLinkSchema>;
type PlanChangeRuleApi = Static<typeof PlanChangeRuleSchema>;

const stamps = (row: { createdAt: Date; updatedAt: Date }) => ({
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

async function requireProduct(
  tx: Queryable,
  tenantId: string,
  id: string,
  field: string,
): Promise<ProductRow> {
  const row = await productRepo.get(tx, tenantId, id);
  if (!row) throw validationFailed(field, 'exists', `${field} ${id} is not a product of this tenant`);
  return row;
}

function requireCharge(product: ProductRow, chargeId: string, field: string) {
  if (!product.charges.some((c) => c.id === chargeId)) {
    throw validationFailed(field, 'exists', `${field} ${chargeId} is not a charge of product ${product.id}`);
  }
}

function presentLink(row: typeof planLinks.$inferSelect): PlanLinkApi {
  const { tenantId: _t, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, ...stamps(row) };
}

export const planLinkService: CrudService<
  PlanLinkApi,
  Static<typeof PlanLinkCreate>,
  Static<typeof PlanLinkUpdate>
> = {
  ...presentedReads(linkRepo, presentLink),
  async create(tx, tenantId, input, now) {
    requireCharge(
      await requireProduct(tx, tenantId, input.sourceProductId, 'sourceProductId'),
      input.sourceChargeId,
      'sourceChargeId',
    );
    requireCharge(
      await requireProduct(tx, tenantId, input.targetProductId, 'targetProductId'),
      input.targetChargeId,
      'targetChargeId',
    );
    const { id: requested, ...fields } = input;
    const row = await linkRepo.insert(tx, tenantId, {
      id: await claimId((x) => linkRepo.get(tx, tenantId, x), requested, uuidv7),
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    return presentLink(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await linkRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const after = await linkRepo.update(tx, tenantId, id, { ...patch, updatedAt: now });
    return after && { before: presentLink(before), after: presentLink(after) };
  },
};

function presentRule(row: typeof planChangeRules.$inferSelect): PlanChangeRuleApi {
  const { tenantId: _t, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, ...stamps(row) };
}

/** A rule covers either one product pair (both ids) or a family (optionally one direction). */
async function checkRuleScope(
  tx: Queryable,
  tenantId: string,
  rule: { family: string | null; fromProductId: string | null; toProductId: string | null },
) {
  const pair = rule.fromProductId !== null || rule.toProductId !== null;
  if (pair) {
    if (rule.fromProductId === null || rule.toProductId === null) {
      const field = rule.fromProductId === null ? 'fromProductId' : 'toProductId';
      throw validationFailed(
        field,
        'required',
        'a product-pair rule needs both fromProductId and toProductId',
      );
    }
    if (rule.fromProductId === rule.toProductId) {
      throw validationFailed('toProductId', 'distinct', 'toProductId must differ from fromProductId');
    }
    await requireProduct(tx, tenantId, rule.fromProductId, 'fromProductId');
    await requireProduct(tx, tenantId, rule.toProductId, 'toProductId');
  } else if (rule.family === null) {
    throw validationFailed('family', 'required', 'a rule needs a family, or fromProductId and toProductId');
  }
}

export const planChangeRuleService: CrudService<
  PlanChangeRuleApi,
  Static<typeof PlanChangeRuleCreate>,
  Static<typeof PlanChangeRuleUpdate>
> = {
  ...presentedReads(ruleRepo, presentRule),
  async create(tx, tenantId, input, now) {
    const scope = {
      family: input.family ?? null,
      fromProductId: input.fromProductId ?? null,
      toProductId: input.toProductId ?? null,
    };
    await checkRuleScope(tx, tenantId, scope);
    const row = await ruleRepo.insert(tx, tenantId, {
      id: await claimId((x) => ruleRepo.get(tx, tenantId, x), input.id, uuidv7),
      name: input.name,
      ...scope,
      direction: input.direction ?? null,
      changeTiming: input.changeTiming,
      prorationType: input.prorationType,
      createdAt: now,
      updatedAt: now,
    });
    return presentRule(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await ruleRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const after = await ruleRepo.update(tx, tenantId, id, { ...patch, updatedAt: now });
    return after && { before: presentRule(before), after: presentRule(after) };
  },
};

/** The tenant's plan-change rules, for the engine's selectPlanChangeRule. */
export async function planChangeRulesOf(db: Queryable, tenantId: string): Promise<PlanChangeRule[]> {
  return (await ruleRepo.list(db, tenantId)).map(
    ({ tenantId: _t, createdAt: _c, updatedAt: _u, ...rule }) => rule,
  );
}

/** Plan links from charges of `sourceProductId` to charges of `targetProductId`. */
export async function planLinksBetween(
  db: Queryable,
  tenantId: string,
  sourceProductId: string,
  targetProductId: string,
) {
  return (await linkRepo.list(db, tenantId))
    .filter((l) => l.sourceProductId === sourceProductId && l.targetProductId === targetProductId)
    .map(presentLink);
}
