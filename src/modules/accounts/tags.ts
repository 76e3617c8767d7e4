import { tagOperations } from '../../unit-of-work/tags.js';
import { type OrganizationRow, presentAccount } from './service.js';
import { organizations } from './tables.js';

/**
 * PUT/DELETE /accounts/{id}/tags/{key}, tenant-owned accounts only (a billing-system account id
 * is 404, as for PATCH): audit `account.tag_set`/`account.tag_delete`, event `account.updated`.
 */
export const accountTags = tagOperations<OrganizationRow>({
  table: organizations,
  label: 'Account',
  resourceType: 'account',
  audit: { set: 'account.tag_set', delete: 'account.tag_delete' },
  updated: { event: 'account.updated', present: presentAccount },
});
