import type { DeclaredRoute } from '../../../http/declared-route.js';
import { addBillingPaymentMethodRoute } from './add-billing-payment-method.js';
import { closeInvoiceRoutes } from './close-billing-invoice.js';
import { createBillingAccountRoute } from './create-billing-account.js';
import { deleteBillingIntegrationRoute } from './delete-billing-integration.js';
import { getBillingIntegrationRoute } from './get-billing-integration.js';
import { issueBillingInvoiceRoute } from './issue-billing-invoice.js';
import { listBillingAccountsRoute } from './list-billing-accounts.js';
import { putBillingIntegrationRoute } from './put-billing-integration.js';

const builtinOperatorRoutes: DeclaredRoute[] = [
  createBillingAccountRoute,
  listBillingAccountsRoute,
  issueBillingInvoiceRoute,
  ...closeInvoiceRoutes,
  addBillingPaymentMethodRoute,
];
export const billingAdminRoutes: DeclaredRoute[] = [
  getBillingIntegrationRoute,
  putBillingIntegrationRoute,
  deleteBillingIntegrationRoute,
  ...builtinOperatorRoutes,
];
