import { asc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { AppError, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { presentedReads, tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CrudService } from '../../unit-of-work/index.js';
import type { ShippingOptionCreate, ShippingOptionSchema, ShippingOptionUpdate } from './schemas.js';
import { shippingOptions } from './tables.js';

export type ShippingOptionApi = Static<typeof ShippingOptionSchema>;
type CreateInput = Static<typeof ShippingOptionCreate>;
type UpdateInput = Static<typeof ShippingOptionUpdate>;
type ShippingOptionRow = typeof shippingOptions.$inferSelect;

const repo = tenantRepo(shippingOptions);

function present(row: ShippingOptionRow): ShippingOptionApi {
  const { tenantId: _t, createdAt, updatedAt, ...rest } = row;
  return { ...rest, createdAt: iso(createdAt), updatedAt: iso(updatedAt) };
}

/** Checked on the merged result of an update too, so a patch of one bound cannot invert the range. */
function checkDays(minDays: number, maxDays: number) {
  if (minDays > maxDays) {
    throw validationFailed(
      'maxDays',
      'order',
      `maxDays (${maxDays}) must be greater than or equal to minDays (${minDays})`,
    );
  }
}

export const shippingOptionService: CrudService<ShippingOptionApi, CreateInput, UpdateInput> = {
  ...presentedReads(repo, present),
  async create(tx, tenantId, input, now) {
    checkDays(input.minDays, input.maxDays);
    const id = input.id ?? uuidv7();
    // ON CONFLICT instead of a read first: two concurrent creates with one id give one 409, not a 500.
    const [row] = await tx
      .insert(shippingOptions)
      .values({
        tenantId,
        id,
        name: input.name,
        amountCents: input.amountCents,
        currency: input.currency,
        countries: input.countries ?? [],
        minDays: input.minDays,
        maxDays: input.maxDays,
        active: input.active ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) {
      const message = `A shipping option with id ${id} already exists`;
      throw new AppError('conflict', message, [{ field: 'id', rule: 'unique', message }]);
    }
    return present(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await repo.get(tx, tenantId, id);
    if (!before) return undefined;
    checkDays(patch.minDays ?? before.minDays, patch.maxDays ?? before.maxDays);
    const after = await repo.update(tx, tenantId, id, { ...patch, updatedAt: now });
    return after && { before: present(before), after: present(after) };
  },
};

export interface AvailabilityFilter {
  /** ISO 3166-1 alpha-2, any case. */
  country?: string | undefined;
  currency?: string | undefined;
}

/**
 * The options a buyer can choose: active ones, shipping to `country` (or everywhere) and priced in
 * `currency`, cheapest first, then by name.
 */
export async function availableShippingOptions(
  db: Queryable,
  tenantId: string,
  filter: AvailabilityFilter = {},
): Promise<ShippingOptionApi[]> {
  const t = shippingOptions;
  const conditions: (SQL | undefined)[] = [eq(t.active, true)];
  if (filter.country !== undefined) {
    // Codes are stored upper case (the write schema enforces it), so only the query needs folding.
    const country = filter.country.toUpperCase();
    conditions.push(or(sql`cardinality(${t.countries}) = 0`, sql`${country} = any(${t.countries})`));
  }
  if (filter.currency !== undefined) conditions.push(eq(t.currency, filter.currency));
  const rows = await db
    .select()
    .from(t)
    .where(tenantWhere(t, tenantId, ...conditions))
    .orderBy(asc(t.amountCents), asc(t.name), asc(t.id));
  return rows.map(present);
}
