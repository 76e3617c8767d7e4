import { eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { AppError, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { type Queryable, rowsOf } from '../../db/client.js';
import { presentedReads, tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CrudService } from '../../unit-of-work/index.js';
import type { PartnerCreate, PartnerSchema, PartnerUpdate } from './schemas.js';
import { partners } from './tables.js';

type PartnerApi = Static<typeof PartnerSchema>;
const partnerRepo = tenantRepo(partners);

const presentPartner = (row: typeof partners.$inferSelect): PartnerApi => ({
  id: row.id,
  name: row.name,
  code: row.code,
  status: row.status as PartnerApi['status'],
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

/** True when the tenant has a partner with this code (active or not). */
export async function partnerKnown(db: Queryable, tenantId: string, code: string): Promise<boolean> {
  const [row] = await db
    .select({ id: partners.id })
    .from(partners)
    .where(tenantWhere(partners, tenantId, eq(partners.code, code)));
  return row !== undefined;
}

/** Refuses a partner code the tenant does not know (400 naming `field`). */
export async function requireKnownPartner(
  db: Queryable,
  tenantId: string,
  code: string | null | undefined,
  field = 'partner',
) {
  if (code === null || code === undefined) return;
  if (!(await partnerKnown(db, tenantId, code))) {
    throw validationFailed(
      field,
      'known_partner',
      `No partner with code "${code}": create it with POST /admin/partners first`,
    );
  }
}

export interface Warning {
  code: 'unknown_partner';
  field: string;
  message: string;
}

/** The warnings of a pricing context's partner: one when the code is not a partner of the tenant. */
export async function partnerWarnings(
  db: Queryable,
  tenantId: string,
  code: string | null | undefined,
  field = 'partner',
): Promise<Warning[]> {
  if (code === null || code === undefined || (await partnerKnown(db, tenantId, code))) return [];
  return [
    {
      code: 'unknown_partner',
      field,
      message: `No partner with code "${code}": no partner price rule or offer applies (prices are the default ones)`,
    },
  ];
}

/**
 * Price rules and offers naming the partner (by table name, not through the catalog module,
 * which imports this one): a partner in use is not deleted.
 */
async function partnerInUse(tx: Queryable, tenantId: string, code: string): Promise<boolean> {
  const rows = rowsOf<unknown>(
    await tx.execute(
      sql`select 1 from price_rules where tenant_id = ${tenantId} and partner = ${code}
        union all select 1 from offers where tenant_id = ${tenantId} and partner = ${code} limit 1`,
    ),
  );
  return rows.length > 0;
}

export const partnerService: CrudService<
  PartnerApi,
  Static<typeof PartnerCreate>,
  Static<typeof PartnerUpdate>
> = {
  ...presentedReads(partnerRepo, presentPartner),
  async create(tx, tenantId, input, now) {
    if (await partnerKnown(tx, tenantId, input.code)) {
      throw new AppError('conflict', `A partner with code "${input.code}" already exists`, [
        { field: 'code', rule: 'unique', message: 'code must be unique in the tenant' },
      ]);
    }
    const row = await partnerRepo.insert(tx, tenantId, {
      id: uuidv7(),
      name: input.name,
      code: input.code,
      status: input.status ?? 'active',
      createdAt: now,
      updatedAt: now,
    });
    return presentPartner(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await partnerRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const after = await partnerRepo.update(tx, tenantId, id, { ...patch, updatedAt: now });
    if (!after) return undefined;
    return { before: presentPartner(before), after: presentPartner(after) };
  },
  async remove(tx, tenantId, id) {
    const row = await partnerRepo.get(tx, tenantId, id);
    if (!row) return undefined;
    if (await partnerInUse(tx, tenantId, row.code)) {
      throw new AppError(
        'conflict',
        `Price rules or offers name partner "${row.code}": delete or change them first, or set the partner inactive`,
      );
    }
    await partnerRepo.remove(tx, tenantId, id);
    return presentPartner(row);
  },
};
