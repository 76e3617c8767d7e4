import { ucpCatalogRoutes } from '../../ucp-catalog/routes/index.js';
import { cancelUcpCheckout } from './cancel-checkout.js';
import { completeUcpCheckout } from './complete-checkout.js';
import { createUcpCheckout } from './create-checkout.js';
import { getUcpCheckout } from './get-checkout.js';
import { getUcpOrder } from './get-order.js';
import { ucpMcp } from './mcp-endpoint.js';
import { getUcpTenantProfile } from './tenant-profile.js';
import { updateUcpCheckout } from './update-checkout.js';
import { getUcpProfile } from './well-known.js';

/** UCP (2026-04-08): discovery, the checkout, order and catalog REST binding, and its MCP binding. */
export const ucpRoutes = [
  getUcpProfile,
  getUcpTenantProfile,
  createUcpCheckout,
  getUcpCheckout,
  updateUcpCheckout,
  completeUcpCheckout,
  cancelUcpCheckout,
  getUcpOrder,
  ...ucpCatalogRoutes,
  ucpMcp,
];
