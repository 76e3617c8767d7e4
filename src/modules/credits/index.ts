export { creditHolder } from './holder.js';
export {
  applyCreditOnIssue,
  applyReservedCredit,
  type ReservedCredit,
  reserveCreditOnIssue,
} from './on-issue.js';
export {
  applyCredit,
  applyOperation,
  expireCredits,
  grantCredit,
  startCreditExpiry,
} from './operations.js';
export { type CreditEntryApi, grant } from './service.js';
