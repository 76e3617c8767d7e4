import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../examples/webhook-receiver.js';
import type { WebhookEvent } from '../../packages/client/src/index.js';
import { deliveryBody, signDelivery } from '../../src/events/signing.js';

describe('examples/webhook-receiver.ts', () => {
  const received: WebhookEvent[] = [];
  const receiver = createWebhookReceiver({
    secrets: ['whsec_new', 'whsec_old'],
    tenantId: 'tenant-a',
    onEvent: (event) => received.push(event),
  });
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  const deliver = (tenantId: string, secrets: string[], tamper = false) => {
    const event = {
      id: `01900000-0000-7000-8000-${Math.random().toString().slice(2, 14).padEnd(12, '0')}`,
      type: 'payment.succeeded',
      occurredAt: new Date('2026-03-01T10:00:00Z'),
      tenantId,
      data: { id: 'ps_1', status: 'success' },
    };
    const body = deliveryBody(event);
    const headers = signDelivery(event, body, secrets, new Date());
    return fetch(url, { method: 'POST', headers, body: tamper ? body.replace('success', 'failed') : body });
  };

  it('accepts signed deliveries of its tenant (either secret of a rotation) and refuses the rest', async () => {
    expect((await deliver('tenant-a', ['whsec_new'])).status).toBe(204);
    expect((await deliver('tenant-a', ['whsec_other', 'whsec_old'])).status).toBe(204);
    expect(received.map((e) => e.event)).toEqual(['payment.succeeded', 'payment.succeeded']);

    const forged = await deliver('tenant-a', ['whsec_attacker']);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: 'bad_signature' });
    expect((await deliver('tenant-a', ['whsec_new'], true)).status).toBe(401);
    const foreign = await deliver('tenant-b', ['whsec_new']);
    expect(foreign.status).toBe(401);
    expect(await foreign.json()).toEqual({ error: 'wrong_tenant' });
    expect(received).toHaveLength(2);
  });
});
