export { completeSession, createSession } from './operations.js';
export { resumeRefund } from './refunds.js';
export { type FailOutcome, failSession, resumeReversal } from './reversal.js';
export { getSession, insertSession, isTerminal, type PaymentSessionApi, presentSession } from './service.js';
export { resumeSettlement, type SettleOutcome, settleSession } from './settlement.js';
