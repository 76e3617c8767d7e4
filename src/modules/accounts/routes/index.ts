import type { DeclaredRoute } from '../../../http/declared-route.js';
import { accountSubListRoutes } from './account-sub-lists.js';
import { createAccountRoute } from './create-account.js';
import { getAccountRoute } from './get-account.js';
import { listAccountsRoute } from './list-accounts.js';
import { updateAccountRoute } from './update-account.js';

export { accountTagTarget } from './shared.js';

export const accountRoutes: DeclaredRoute[] = [
  createAccountRoute,
  listAccountsRoute,
  getAccountRoute,
  updateAccountRoute,
  ...accountSubListRoutes,
];
