import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { requestProblem } from '../../src/http/text-guard.js';
import { signatureHeader } from '../../src/modules/provider-events/index.js';
import { providerEvents } from '../../src/modules/provider-events/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

// Issue 27, item 9: the global text guard walked the provider callback's raw Buffer body as an
// object, one entry per byte (~1.1 s of CPU per MB on the event loop) before the signature was
// checked, for any endpoint id. The guard now walks only parsed JSON; the callback checks its
// text once the signature is verified. A correctly signed event with a NUL, a lone surrogate or
// 100k levels of nesting was a 500 and never recorded: it is 400.

describe('provider callback: signature first, text only where parsed', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let endpoint: { provider: string; endpointId: string; secret: string };
  const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/payment-provider',
      headers: bearer(tenant.keys.admin),
      payload: { provider: 'sandbox' },
    });
    expect(res.statusCode).toBe(200);
    endpoint = res.json().data;
  });
  afterAll(() => t.app.close());
  // Callbacks are rate limited per client address: a fresh window for each test.
  beforeEach(() => clock.advance(61_000));

  const deliver = (raw: string, signature: string | null) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/provider-events/${endpoint.provider}/${endpoint.endpointId}`,
      headers: {
        'content-type': 'application/json',
        ...(signature === null ? {} : { 'provider-signature': signature }),
      },
      payload: raw,
    });
  const signed = (raw: string) =>
    deliver(raw, signatureHeader(endpoint.secret, Math.floor(clock.now().getTime() / 1000), raw));
  const recorded = async (eventId: string) =>
    (await t.deps.db.select().from(providerEvents).where(eq(providerEvents.eventId, eventId))).length;

  it('the request guard does not read a Buffer body (it walked one entry per byte)', () => {
    let reads = 0;
    const bytes = Buffer.alloc(1_048_576, 0x41);
    const counted = new Proxy(bytes, {
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
      get(target, property) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property);
      },
    });
    const request = { headers: {}, params: {}, query: {}, body: counted } as unknown as FastifyRequest;
    expect(requestProblem(request)).toBeUndefined();
    expect(reads).toBe(0);
  });

  it('a 1 MB body unsigned or wrongly signed is refused 401, and nothing is recorded', async () => {
    const id = `evt_${randomUUID()}`;
    const big = JSON.stringify({
      id,
      type: 'payment.succeeded',
      data: { paymentSessionId: randomUUID(), pad: 'x'.repeat(1_000_000) },
    });
    expect((await deliver(big, null)).statusCode).toBe(401);
    const wrong = signatureHeader('whsec_wrong', Math.floor(clock.now().getTime() / 1000), big);
    const res = await deliver(big, wrong);
    expect(res.statusCode).toBe(401);
    expect(errorBody(res).code).toBe('unauthorized');
    expect(await recorded(id)).toBe(0);
  });

  it('a signed event with a NUL, a lone surrogate or 100k levels of nesting is 400 naming the field, not recorded', async () => {
    const event = (id: string, extra: string) =>
      `{"id":"${id}","type":"payment.succeeded","data":{"paymentSessionId":"${randomUUID()}",${extra}}}`;
    for (const [extra, field, rule] of [
      ['"failureReason":"bad\\u0000byte"', 'data.failureReason', 'characters'],
      ['"note":"half \\ud800 a pair"', 'data.note', 'characters'],
      [`"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'data', 'maxDepth'],
    ] as const) {
      const id = `evt_${randomUUID()}`;
      const res = await signed(event(id, extra));
      expect(res.statusCode, `${rule} ${field}: ${res.body}`).toBe(400);
      expect(errorBody(res)).toMatchObject({ code: 'validation_failed', details: [{ field, rule }] });
      expect(await recorded(id)).toBe(0);
    }
  });
});
