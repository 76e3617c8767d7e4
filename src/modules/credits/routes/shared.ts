import { Type } from 'typebox';
import { notFound } from '../../../core/errors.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, next } from '../../../http/envelope.js';
import { isOrganizationId, resolveAccount } from '../../accounts/index.js';

export const TAGS = ['Credits'];
export const AccountParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Account (organization) id.' }),
});

export const ledgerActions = (accountId: string): ActionSpec[] => [
  next('credits', 'getAccountCredits', { id: accountId }),
];

/** Credit is kept for the tenant's own accounts (organizations): anything else is 404. */
export async function requireAccount(deps: Deps, tenantId: string, id: string) {
  if (!isOrganizationId(id) || (await resolveAccount(deps, tenantId, id))?.source !== 'local')
    throw notFound('Account');
}
