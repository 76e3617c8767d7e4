// Agentic checkout in the bench: an ACP and a UCP checkout (create, update, complete) through the
// protocols' own routes, beside our cart flow in the same run. The UCP platform's profile is
// served from this process on loopback (the bench server runs as a sandbox, which allows it).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchServer, Fixture, FlowCall } from '../harness.js';

export const ACP_FLOW = 'ACP checkout: create, update with a code, delegate payment, complete (4 requests)';
export const UCP_FLOW = 'UCP checkout: create, update with a code, complete (3 requests)';

const ACP_HEADERS = { 'api-version': '2026-04-17' };
const acp = (extra: Record<string, string> = {}) => ({
  headers: { ...ACP_HEADERS, 'idempotency-key': randomUUID(), ...extra },
  bare: true,
});

/** ACP: a digital item, a promotion code, a delegated card, the order placed. */
export const acpFlow =
  (server: BenchServer) =>
  async (call: FlowCall, n: number): Promise<void> => {
    const f = server.fixtures[n % server.fixtures.length] as Fixture;
    const items = [{ id: f.oneTimeProductId, quantity: 12 }];
    const session = await call(
      'POST',
      '/checkout_sessions',
      f.key,
      { currency: 'usd', line_items: items },
      acp(),
    );
    const id = session.id as string;
    const updated = await call(
      'POST',
      `/checkout_sessions/${id}`,
      f.key,
      { discounts: { codes: [f.promoCode] } },
      acp(),
    );
    const total = (updated.totals as { type: string; amount: number }[]).find((t) => t.type === 'total');
    const token = await call(
      'POST',
      '/agentic_commerce/delegate_payment',
      f.key,
      {
        payment_method: {
          type: 'card',
          card_number_type: 'fpan',
          virtual: false,
          number: '4242424242424242',
          exp_month: '11',
          exp_year: '2030',
          display_card_funding_type: 'credit',
          display_brand: 'visa',
          display_last4: '4242',
          metadata: {},
        },
        allowance: {
          reason: 'one_time',
          max_amount: total?.amount ?? 0,
          currency: 'usd',
          checkout_session_id: id,
          merchant_id: f.tenantId,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
        risk_signals: [{ type: 'card_testing', score: 3, action: 'authorized' }],
        metadata: {},
      },
      acp(),
    );
    await call(
      'POST',
      `/checkout_sessions/${id}/complete`,
      f.key,
      {
        payment_data: {
          handler_id: 'acp_delegated_card',
          instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
        },
      },
      acp(),
    );
  };

/** A UCP platform's profile (the four shopping capabilities), as the tests' platform serves it. */
function platformProfile() {
  const version = '2026-04-08';
  const spec = (page: string) => `https://ucp.dev/${version}/specification/${page}`;
  const capability = (name: string) => ({
    version,
    spec: spec(name),
    schema: `https://ucp.dev/${version}/schemas/shopping/${name}.json`,
    ...(name === 'discount' || name === 'fulfillment' ? { extends: 'dev.ucp.shopping.checkout' } : {}),
  });
  return {
    ucp: {
      version,
      services: {
        'dev.ucp.shopping': [
          {
            version,
            spec: spec('overview'),
            transport: 'rest',
            schema: `https://ucp.dev/${version}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: Object.fromEntries(
        ['checkout', 'order', 'discount', 'fulfillment'].map((n) => [
          `dev.ucp.shopping.${n}`,
          [capability(n)],
        ]),
      ),
      payment_handlers: {
        'com.example.sandbox_card': [
          {
            id: 'platform_sandbox_card',
            version,
            spec: 'https://example.com/ucp/handlers/sandbox_card',
            schema: 'https://example.com/ucp/handlers/sandbox_card/schema.json',
          },
        ],
      },
    },
    signing_keys: [],
  };
}

/** Serves the platform profile on loopback; resolves with its URL and a stop. */
export async function startPlatformProfile(): Promise<{ url: string; stop: () => Promise<void> }> {
  const body = JSON.stringify(platformProfile());
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/profile`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** UCP: a digital item, a promotion code, the sandbox card, the order placed. */
export const ucpFlow =
  (server: BenchServer, profileUrl: string) =>
  async (call: FlowCall, n: number): Promise<void> => {
    const f = server.fixtures[n % server.fixtures.length] as Fixture;
    const options = () => ({
      prefix: '/ucp/v1',
      headers: { 'ucp-agent': `profile="${profileUrl}"`, 'idempotency-key': randomUUID() },
      bare: true,
    });
    const line_items = [{ item: { id: f.oneTimeProductId }, quantity: 12 }];
    const checkout = await call('POST', '/checkout-sessions', f.key, { line_items }, options());
    const id = checkout.id as string;
    await call(
      'PUT',
      `/checkout-sessions/${id}`,
      f.key,
      { line_items, discounts: { codes: [f.promoCode] } },
      options(),
    );
    await call(
      'POST',
      `/checkout-sessions/${id}/complete`,
      f.key,
      {
        payment: {
          instruments: [
            {
              id: 'instr_1',
              handler_id: 'sandbox_card',
              type: 'card',
              selected: true,
              credential: { type: 'token', token: 'success_token' },
            },
          ],
        },
      },
      options(),
    );
  };
