import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import {
  type AcpCatalog,
  type AcpClient,
  acpCatalog,
  acpClient,
  delegation,
  noInterventions,
  paidWith,
} from './acp-client.js';
import { expectAcp, expectDelegate } from './schemas/acp/index.js';

// Paying an ACP session: what a delegated token may pay (once, this session, this merchant, up to
// its allowance, until it expires) and when a session can be completed at all.

let t: TestApp;
let tenant: TestTenant;
let catalog: AcpCatalog;
let agent: AcpClient;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, tenant);
  agent = acpClient(t, tenant.keys.commerce);
});
afterAll(() => t.app.close());

/** A ready session: one e-book (900 cents, delivered digitally). */
async function readySession(): Promise<string> {
  const res = await agent.create({
    currency: 'usd',
    line_items: [{ id: catalog.ebook.id }],
    capabilities: noInterventions,
  });
  expect(res.json().status).toBe('ready_for_payment');
  return res.json().id;
}

async function tokenFor(sessionId: string, maxAmount = 900, expiresInMs = 3_600_000): Promise<string> {
  const res = await agent.delegate(delegation(sessionId, tenant.tenantId, maxAmount, clock, expiresInMs));
  expect(res.statusCode, res.body).toBe(201);
  expectDelegate('DelegatePaymentResponse', res.json());
  return res.json().id;
}

/** The refusal of a completion: 400 payment_token_invalid naming the token. */
async function expectTokenRefused(sessionId: string, token: string, reason: RegExp) {
  const res = await agent.complete(sessionId, paidWith(token));
  expect(res.statusCode, res.body).toBe(400);
  expectAcp('Error', res.json());
  expect(res.json()).toMatchObject({
    type: 'invalid_request',
    code: 'payment_token_invalid',
    param: '$.payment_data.instrument.credential.token',
  });
  expect(res.json().message).toMatch(reason);
  // Refused, the session is still open and unpaid.
  expect((await agent.get(sessionId)).json()).toMatchObject({ status: 'ready_for_payment' });
}

describe('ACP delegated tokens', () => {
  it('refuses an expired token', async () => {
    const id = await readySession();
    const token = await tokenFor(id, 900, 60_000);
    clock.advance(61_000);
    await expectTokenRefused(id, token, /expired/);
  });

  it('refuses a token whose allowance is below the total', async () => {
    const id = await readySession();
    await expectTokenRefused(id, await tokenFor(id, 899), /at most 899/);
  });

  it('refuses a token used twice: the second session is not paid with it', async () => {
    const first = await readySession();
    const token = await tokenFor(first);
    expect((await agent.complete(first, paidWith(token))).statusCode).toBe(200);
    const res = await agent.complete(first, paidWith(token));
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('checkout_session_closed');
    // The same token on another session: for another session, and spent anyway.
    await expectTokenRefused(await readySession(), token, /another checkout session|already used/);
  });

  it('refuses a token delegated for another session', async () => {
    const mine = await readySession();
    const other = await readySession();
    await expectTokenRefused(mine, await tokenFor(other), /another checkout session/);
  });

  it('refuses an unknown token and a handler the session does not offer', async () => {
    const id = await readySession();
    await expectTokenRefused(id, 'vt_made_up', /unknown/);
    const sandbox = paidWith(await tokenFor(id));
    sandbox.payment_data.handler_id = 'sandbox_card';
    const res = await agent.complete(id, sandbox);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'payment_token_invalid', param: '$.payment_data.handler_id' });
  });

  it('refuses to delegate for an unknown session, another merchant or an allowance already expired', async () => {
    const id = await readySession();
    const cases = [
      [
        delegation('0190b000-0000-7000-8000-000000000099', tenant.tenantId, 900, clock),
        '$.allowance.checkout_session_id',
      ],
      [delegation(id, 'another-merchant', 900, clock), '$.allowance.merchant_id'],
      [delegation(id, tenant.tenantId, 900, clock, -1000), '$.allowance.expires_at'],
    ] as const;
    for (const [body, param] of cases) {
      const res = await agent.delegate(body);
      expect(res.statusCode, res.body).toBe(400);
      expectDelegate('Error', res.json());
      expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'invalid', param });
    }
  });
});

describe('ACP completion and cancel: when a session can be paid', () => {
  it('refuses to complete a session that is not ready: 409 checkout_not_ready, nothing paid', async () => {
    const res = await agent.create({
      currency: 'usd',
      line_items: [{ id: catalog.mug.id }],
      capabilities: noInterventions,
    });
    const session = res.json();
    expect(session.status).toBe('not_ready_for_payment');
    const token = await tokenFor(session.id, 5000);
    const refused = await agent.complete(session.id, paidWith(token));
    expect(refused.statusCode).toBe(409);
    expectAcp('Error', refused.json());
    expect(refused.json()).toMatchObject({ type: 'invalid_request', code: 'checkout_not_ready' });
    expect(refused.json().message).toMatch(/shipping address/);
    // The token was not spent: once the session is ready, it pays.
    await agent.update(session.id, {
      fulfillment_details: {
        address: { line_one: '1 Main St', city: 'Austin', state: 'TX', country: 'us', postal_code: '73301' },
      },
    });
    expect((await agent.complete(session.id, paidWith(token))).json().status).toBe('completed');
  });

  it('answers cancel of a completed session 405', async () => {
    const id = await readySession();
    expect((await agent.complete(id, paidWith(await tokenFor(id)))).statusCode).toBe(200);
    const res = await agent.cancel(id);
    expect(res.statusCode).toBe(405);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'checkout_session_closed' });
  });
});
