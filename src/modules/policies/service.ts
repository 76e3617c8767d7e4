import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { AppError } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { presentedReads, tenantRepo } from '../../db/tenant-repo.js';
import type { CrudService } from '../../unit-of-work/index.js';
import { checkCondition } from './evaluate.js';
import type { PolicyCreate, PolicySchema, PolicyUpdate } from './schemas.js';
import { policies } from './tables.js';

export type PolicyApi = Static<typeof PolicySchema>;
type CreateInput = Static<typeof PolicyCreate>;
type UpdateInput = Static<typeof PolicyUpdate>;
type PolicyRow = typeof policies.$inferSelect;

const repo = tenantRepo(policies);

function presentPolicy(row: PolicyRow): PolicyApi {
  const { tenantId: _t, createdAt, updatedAt, ...rest } = row;
  return { ...rest, createdAt: iso(createdAt), updatedAt: iso(updatedAt) };
}

export const policyService: CrudService<PolicyApi, CreateInput, UpdateInput> = {
  ...presentedReads(repo, presentPolicy),
  async create(tx, tenantId, input, now) {
    checkCondition(input.condition);
    // ON CONFLICT DO NOTHING: a concurrent create of the same id also ends in 409, not a 500.
    const [row] = await tx
      .insert(policies)
      .values({
        tenantId,
        id: input.id ?? uuidv7(),
        name: input.name,
        type: input.type,
        condition: input.condition,
        effect: input.effect,
        active: input.active ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) {
      throw new AppError('conflict', `A policy with id ${input.id} already exists`, [
        { field: 'id', rule: 'unique', message: `id ${input.id} is already used by another policy` },
      ]);
    }
    return presentPolicy(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await repo.get(tx, tenantId, id);
    if (!before) return undefined;
    if (patch.condition !== undefined) checkCondition(patch.condition);
    const after = await repo.update(tx, tenantId, id, { ...patch, updatedAt: now });
    return after && { before: presentPolicy(before), after: presentPolicy(after) };
  },
};
