export {
  applyCredit,
  applyCreditOnIssue,
  expireCredits,
  grantCredit,
  resumeApplication,
  startCreditExpiry,
} from './operations.js';
export { type CreditEntryApi, grant } from './service.js';
