import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCommerceClient,
  verifyWebhook,
  WebhookVerificationError,
} from '../../packages/client/src/index.js';
import { deliveryBody, signDelivery } from '../../src/events/signing.js';
import { createSender, DeliveryWorker } from '../../src/modules/webhooks/index.js';
import { createTestTenant, startApp, type TestApp } from '../harness.js';
import { type Receipt, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import { listen } from './listen.js';

/** The reason verifyWebhook refuses with (fails the test when it accepts). */
function refusal(verify: () => unknown): string {
  try {
    verify();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  return expect.unreachable('verified');
}

describe('verifyWebhook: what our server really sends, through the Standard Webhooks library', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const sender = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE });

  beforeAll(async () => {
    t = await startApp({ config: { webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await sender.close();
    await t.app.close();
  });

  it('accepts a delivery of our sender; refuses it for another tenant, secret, body or a 2020 timestamp', async () => {
    const tenant = await createTestTenant(t.deps);
    const client = createCommerceClient({ baseUrl: await listen(t), apiKey: tenant.keys.commerce });
    const hook = await client.webhooks.create({ url: receiver.url, events: ['account.created'] });
    const account = await client.accounts.create({ name: 'Hooked Co' });
    const worker = new DeliveryWorker(
      {
        db: t.deps.db,
        clock: t.deps.clock,
        logger: pino({ level: 'silent' }),
        keyRing: t.deps.keyRing,
        sender,
      },
      { concurrency: 1, pollIntervalMs: 60_000, tenantIds: [tenant.tenantId] },
    );
    expect(await worker.drain()).toBe(1);
    const receipt = receiver.receipts.at(-1) as Receipt;
    const secrets = [hook.data.secret];

    const event = verifyWebhook<{ id: string; name: string }>(receipt.body, receipt.headers, secrets, {
      tenantId: tenant.tenantId,
    });
    expect(event).toMatchObject({ event: 'account.created', tenantId: tenant.tenantId });
    expect(event.data).toMatchObject({ id: account.data.id, name: 'Hooked Co' });
    expect(event.id).toBe(receipt.headers['webhook-id']);

    const verify = (body: string, headers: Receipt['headers'], keys = secrets, tenantId = tenant.tenantId) =>
      refusal(() => verifyWebhook(body, headers, keys, { tenantId }));
    expect(verify(receipt.body, receipt.headers, secrets, 'another-tenant')).toBe('wrong_tenant');
    expect(verify(receipt.body, receipt.headers, ['whsec_c29tZW9uZSBlbHNl'])).toBe('bad_signature');
    expect(verify(receipt.body.replace('Hooked Co', 'Hacked Co'), receipt.headers)).toBe('bad_signature');
    // The same delivery sent again with its timestamp set back, or signed anew in 2020.
    expect(verify(receipt.body, { ...receipt.headers, 'webhook-timestamp': '1577836800' })).toBe(
      'stale_timestamp',
    );
    const parsed = JSON.parse(receipt.body);
    const replayed = signDelivery(
      { id: parsed.id, type: parsed.event, occurredAt: new Date(parsed.timestamp) },
      receipt.body,
      secrets,
      new Date('2020-01-01T00:00:00Z'),
    );
    expect(verify(receipt.body, replayed)).toBe('stale_timestamp');
    // Our own header alone (no signed timestamp) is not enough.
    const { 'x-webhook-signature': ours } = receipt.headers;
    expect(verify(receipt.body, { 'x-webhook-signature': ours })).toBe('missing_signature');
  });
});

describe('verifyWebhook: the timestamp tolerance and secret rotation', () => {
  const event = {
    id: '01900000-0000-7000-8000-00000000e001',
    type: 'order.created',
    occurredAt: new Date('2026-03-01T10:00:00Z'),
    tenantId: 'tenant-a',
    data: { id: 'o1', totalCents: 500 },
  };
  const body = deliveryBody(event);
  const secretA = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const secretB = 'whsec_dGhlIHByZXZpb3VzIHNlY3JldCBvZiB0aGUgdGVzdA==';
  const signedAgo = (seconds: number, secrets = [secretA]) =>
    signDelivery(event, body, secrets, new Date(Date.now() - seconds * 1000));
  const verify = (headers: Record<string, string>, secrets = [secretA], toleranceSeconds?: number) =>
    verifyWebhook(body, headers, secrets, {
      tenantId: 'tenant-a',
      ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
    });

  it('accepts an attempt signed up to five minutes ago (by default) and refuses an older or future one', () => {
    expect(verify(signedAgo(0)).event).toBe('order.created');
    expect(verify(signedAgo(240)).data).toEqual(event.data);
    expect(refusal(() => verify(signedAgo(360)))).toBe('stale_timestamp');
    expect(refusal(() => verify(signedAgo(-360)))).toBe('stale_timestamp');
    // A narrower window, and Headers instead of a plain object.
    expect(refusal(() => verify(signedAgo(120), [secretA], 60))).toBe('stale_timestamp');
    expect(
      verifyWebhook(body, new Headers(signedAgo(30)), [secretA], {
        tenantId: 'tenant-a',
        toleranceSeconds: 60,
      }).id,
    ).toBe(event.id);
    expect(() => verify(signedAgo(0), [secretA], 600)).toThrow(RangeError);
  });

  it('accepts either secret of a rotation (the server signs with both) and no other', () => {
    const rotating = signedAgo(0, [secretB, secretA]);
    expect(rotating['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secrets of [[secretA], [secretB], ['whsec_b3RoZXI=', secretA]]) {
      expect(verify(rotating, secrets).tenantId).toBe('tenant-a');
    }
    expect(refusal(() => verify(rotating, ['whsec_b3RoZXI=']))).toBe('bad_signature');
    expect(refusal(() => verify({}))).toBe('missing_signature');
  });
});
