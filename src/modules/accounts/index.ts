export { AccountSchema } from './schemas.js';
export {
  type AccountApi,
  billingAccountFor,
  createAccount,
  isOrganizationId,
  presentAccount,
  resolveAccount,
} from './service.js';
