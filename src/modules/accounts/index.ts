export { createAccount, updateAccount } from './operations.js';
export { AccountSchema } from './schemas.js';
export {
  type AccountApi,
  accountLinkedTo,
  billingAccountFor,
  insertAccount,
  isOrganizationId,
  presentAccount,
  resolveAccount,
} from './service.js';
