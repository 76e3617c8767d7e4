import type { DeclaredRoute } from '../../../http/declared-route.js';
import { applyCreditToInvoiceRoute } from './apply-credit-to-invoice.js';
import { getAccountCreditsRoute } from './get-account-credits.js';
import { grantCreditRoute } from './grant-credit.js';

export const creditRoutes: DeclaredRoute[] = [
  getAccountCreditsRoute,
  grantCreditRoute,
  applyCreditToInvoiceRoute,
];
