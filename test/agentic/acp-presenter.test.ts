import { describe, expect, it } from 'vitest';
import { type AcpView, presentSession } from '../../src/modules/checkout-sessions/acp/presenter.js';
import type { CheckoutSession, CheckoutStatus } from '../../src/modules/checkout-sessions/index.js';
import { expectAcp } from './schemas/acp/index.js';

// The ACP presenter on its own: every model status, the messages' codes, links and the parts of
// a session the HTTP tests do not reach (an escalated session: ACP sessions never escalate).

const view: AcpView = {
  publicBaseUrl: 'https://api.example.com/',
  environment: 'sandbox',
  merchantId: 'tenant-1',
  seller: {
    termsOfUseUrl: 'https://shop.example.com/terms',
    privacyPolicyUrl: null,
    returnPolicyUrl: 'https://shop.example.com/returns',
  },
};

function session(overrides: Partial<CheckoutSession> = {}): CheckoutSession {
  return {
    id: '0190b000-0000-7000-8000-00000000c001',
    protocol: 'acp',
    status: 'ready',
    currency: 'EUR',
    items: [{ productId: 'p1', quantity: 1 }],
    lines: [
      {
        id: 'li_p1',
        productId: 'p1',
        name: 'Mug',
        description: 'A mug',
        quantity: 1,
        unitAmount: 1000,
        baseAmount: 1000,
        discount: 0,
        subtotal: 1000,
        tax: 0,
        total: 1000,
        requiresShipping: true,
      },
    ],
    buyer: { firstName: 'Jane', phone: '+15550001111' },
    address: { line1: '1 Rue X', city: 'Paris', postalCode: '75002', country: 'FR' },
    fulfillmentOptions: [],
    selectedFulfillmentOptionId: null,
    discountCodes: [],
    appliedDiscounts: [],
    rejectedDiscounts: [],
    totals: {
      itemsBase: 1000,
      itemsDiscount: 0,
      subtotal: 1000,
      discount: 0,
      fulfillment: 0,
      tax: 0,
      total: 1000,
    },
    messages: [],
    orderId: null,
    paymentSessionId: null,
    continueUrl: null,
    platform: { webhookUrl: null, profileUrl: null },
    expiresAt: '2026-05-04T16:00:00.000Z',
    createdAt: '2026-05-04T10:00:00.000Z',
    updatedAt: '2026-05-04T10:00:00.000Z',
    ...overrides,
  };
}

describe('ACP presenter', () => {
  it('names every model status as ACP does; an escalated session is not ready, with its message', () => {
    const expected: Record<CheckoutStatus, string> = {
      not_ready: 'not_ready_for_payment',
      ready: 'ready_for_payment',
      in_progress: 'in_progress',
      requires_escalation: 'not_ready_for_payment',
      completed: 'completed',
      canceled: 'canceled',
    };
    for (const [status, acp] of Object.entries(expected)) {
      const out = presentSession(session({ status: status as CheckoutStatus }), view);
      expect(out.status, status).toBe(acp);
      expectAcp('CheckoutSession', out);
    }
    const escalated = presentSession(
      session({
        status: 'requires_escalation',
        continueUrl: 'https://api.example.com/checkout/x/continue',
        messages: [
          {
            type: 'error',
            code: 'requires_escalation',
            content: 'The buyer must confirm this payment',
            target: { kind: 'payment' },
            resolution: 'requires_buyer_review',
          },
        ],
      }),
      view,
    );
    expectAcp('CheckoutSession', escalated);
    expect(escalated.messages).toEqual([
      {
        type: 'error',
        code: 'intervention_required',
        param: '$.payment_data',
        resolution: 'requires_buyer_review',
        content_type: 'plain',
        content: 'The buyer must confirm this payment',
      },
    ]);
  });

  it('writes messages in the protocol’s enums: info has no code, a warning ACP has no code for is info', () => {
    const out = presentSession(
      session({
        messages: [
          { type: 'info', code: 'invalid', content: 'canceled' },
          { type: 'warning', code: 'out_of_stock', content: 'few left', target: { kind: 'item', index: 0 } },
          { type: 'warning', code: 'missing', content: 'add a phone', target: { kind: 'buyer' } },
          {
            type: 'error',
            code: 'invalid',
            content: 'bad zip',
            target: { kind: 'address', field: 'postalCode' },
          },
        ],
      }),
      view,
    );
    expectAcp('CheckoutSession', out);
    expect(out.messages.map((m) => [m.type, m.code, m.param])).toEqual([
      ['info', undefined, undefined],
      ['warning', 'low_stock', '$.line_items[0]'],
      ['info', undefined, '$.buyer'],
      ['error', 'invalid', '$.fulfillment_details.address.postal_code'],
    ]);
  });

  it('links the seller’s policies it has, lower-cases the currency, fills what ACP requires of an address', () => {
    const out = presentSession(session(), view);
    expect(out.links).toEqual([
      { type: 'terms_of_use', url: 'https://shop.example.com/terms' },
      { type: 'return_policy', url: 'https://shop.example.com/returns' },
    ]);
    expect(presentSession(session(), { ...view, seller: null }).links).toEqual([]);
    expect(out.currency).toBe('eur');
    // No email: no ACP buyer (it requires one); the contact still has the phone.
    expect(out).not.toHaveProperty('buyer');
    expect(out.fulfillment_details).toEqual({
      name: 'Jane',
      phone_number: '+15550001111',
      address: {
        name: 'Jane',
        line_one: '1 Rue X',
        city: 'Paris',
        state: '',
        country: 'FR',
        postal_code: '75002',
      },
    });
    expect(out.line_items[0]).toMatchObject({ description: 'A mug' });
  });

  it('gives an order its permalink, and allocates a lone code to the lines it discounted', () => {
    const out = presentSession(
      session({
        status: 'completed',
        orderId: '0190b000-0000-7000-8000-00000000d001',
        discountCodes: ['TEN', 'LATE'],
        appliedDiscounts: [{ code: 'TEN', title: 'Code TEN', amount: 100 }],
        rejectedDiscounts: [{ code: 'LATE', reason: 'expired' }],
        lines: [
          { ...session().lines[0], discount: 100, subtotal: 900, total: 900 },
        ] as CheckoutSession['lines'],
        totals: {
          itemsBase: 1000,
          itemsDiscount: 100,
          subtotal: 900,
          discount: 100,
          fulfillment: 0,
          tax: 0,
          total: 900,
        },
      }),
      view,
    );
    expectAcp('CheckoutSessionWithOrder', out);
    expect(out.order).toEqual({
      id: '0190b000-0000-7000-8000-00000000d001',
      checkout_session_id: '0190b000-0000-7000-8000-00000000c001',
      permalink_url: 'https://api.example.com/api/v1/orders/0190b000-0000-7000-8000-00000000d001',
    });
    expect(out.discounts).toEqual({
      codes: ['TEN', 'LATE'],
      applied: [
        {
          id: 'di_ten',
          code: 'TEN',
          coupon: { id: 'TEN', name: 'Code TEN' },
          amount: 100,
          automatic: false,
          method: 'across',
          allocations: [{ path: '$.line_items[0]', amount: 100 }],
        },
      ],
      rejected: [{ code: 'LATE', reason: 'discount_code_expired' }],
    });
    expect(out.totals.find((x) => x.type === 'discount')).toBeUndefined();
  });
});
