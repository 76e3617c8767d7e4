import type { Tx } from '../../db/client.js';
import { readTogether } from '../../db/read-together.js';
import { type CartContents, type CartRow, setCartContents } from '../carts/index.js';
import { draftProductsRead } from '../product-content/index.js';
import { availableShippingOptions } from '../shipping/index.js';
import { trackedProductsRead } from '../stock/index.js';
import type {
  AppliedDiscount,
  CheckoutAddress,
  CheckoutBuyer,
  CheckoutLine,
  CheckoutMessage,
  CheckoutStatus,
  CheckoutTotals,
  FulfillmentOption,
  RequestedItem,
} from './model.js';

// What a session is, decided from what the agent asked: the cart's lines priced now, the
// fulfillment options for its address, the totals, the messages and so the status. The same
// input at the same time gives the same answer, whichever protocol asked.

/** What the agent has asked for so far (the session's inputs). */
export interface SessionInputs {
  items: RequestedItem[];
  buyer: CheckoutBuyer | null;
  address: CheckoutAddress | null;
  selectedFulfillmentOptionId: string | null;
  discountCodes: string[];
}

export interface Decided {
  status: CheckoutStatus;
  lines: CheckoutLine[];
  fulfillmentOptions: FulfillmentOption[];
  selectedFulfillmentOptionId: string | null;
  appliedDiscounts: AppliedDiscount[];
  rejectedDiscounts: { code: string; reason: string }[];
  totals: CheckoutTotals;
  messages: CheckoutMessage[];
}

export const DIGITAL_OPTION_ID = 'digital';
const DAY_MS = 86_400_000;

const ITEM_PROBLEMS = {
  unknown: { code: 'invalid', text: (id: string) => `Product ${id} is not sold here` },
  inactive: { code: 'out_of_stock', text: (id: string) => `Product ${id} is no longer available` },
  currency: { code: 'invalid', text: (id: string) => `Product ${id} is priced in another currency` },
  quantity: { code: 'invalid', text: (id: string) => `The quantity of ${id} must be 1-100000` },
} as const;

/** The session's cart: its id, and its row when the session's unit of work just created it. */
export interface SessionCart {
  cartId: string;
  currency: string;
  created?: CartRow | undefined;
}

/** The cart set to the inputs; with several codes, the first that applies is kept. */
async function fillCart(tx: Tx, tenantId: string, session: SessionCart, inputs: SessionInputs, now: Date) {
  const cartId = session.cartId;
  const codes = inputs.discountCodes.length > 0 ? inputs.discountCodes : [null];
  const rejected: { code: string; reason: string }[] = [];
  let contents: CartContents | undefined;
  for (const [i, code] of codes.entries()) {
    // A cart created by this unit is filled as it is the first time; after that it has lines.
    const target = i === 0 && session.created ? { created: session.created } : cartId;
    contents = await setCartContents(tx, tenantId, target, { items: inputs.items, promoCode: code }, now);
    if (!contents.promo || contents.promo.applied) break;
    rejected.push({ code: contents.promo.code, reason: contents.promo.reason ?? 'unknown' });
  }
  const last = contents as CartContents;
  // A code that did not apply was the cart's last try: the cart keeps the first applying one only.
  if (last.promo && !last.promo.applied)
    return {
      contents: await setCartContents(tx, tenantId, cartId, { items: inputs.items, promoCode: null }, now),
      rejected,
    };
  const applied = last.promo?.code;
  const later = inputs.discountCodes.filter((c) => c !== applied && !rejected.some((r) => r.code === c));
  for (const code of later) rejected.push({ code, reason: 'not_combinable' });
  return { contents: last, rejected };
}

/** Each line's share of the code's discount, by its total (largest remainder). */
function allocate(totals: number[], discount: number): number[] {
  const sum = totals.reduce((a, b) => a + b, 0);
  if (sum <= 0 || discount <= 0) return totals.map(() => 0);
  const exact = totals.map((t) => (t * discount) / sum);
  const shares = exact.map(Math.floor);
  let left = discount - shares.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    shares[i] = (shares[i] as number) + 1;
    left--;
  }
  return shares;
}

function linesOf(contents: CartContents): { lines: CheckoutLine[]; codeDiscount: number } {
  const items = contents.cart.items;
  const codeDiscount = contents.cart.promo?.applies ? contents.cart.promo.discountCents : 0;
  const shares = allocate(
    items.map((i) => i.totalCents),
    codeDiscount,
  );
  const lines = items.map((item, i): CheckoutLine => {
    const discount = item.listCents - item.totalCents + (shares[i] as number);
    const subtotal = item.listCents - discount;
    return {
      id: `li_${item.productId}`,
      productId: item.productId,
      name: item.productName ?? item.productId,
      description: null,
      quantity: item.quantity,
      unitAmount: item.unitPriceCents,
      baseAmount: item.listCents,
      discount,
      subtotal,
      tax: 0,
      total: subtotal,
      requiresShipping: contents.shipped.has(item.productId),
    };
  });
  return { lines, codeDiscount };
}

async function fulfillmentFor(
  tx: Tx,
  tenantId: string,
  lines: CheckoutLine[],
  inputs: SessionInputs,
  currency: string,
  now: Date,
): Promise<{ options: FulfillmentOption[]; selected: string | null; messages: CheckoutMessage[] }> {
  if (lines.length === 0) return { options: [], selected: null, messages: [] };
  if (!lines.some((l) => l.requiresShipping)) {
    const digital: FulfillmentOption = {
      id: DIGITAL_OPTION_ID,
      type: 'digital',
      title: 'Digital delivery',
      description: 'Delivered electronically after payment',
      carrier: null,
      earliestDeliveryTime: null,
      latestDeliveryTime: null,
      amount: 0,
    };
    return { options: [digital], selected: DIGITAL_OPTION_ID, messages: [] };
  }
  if (!inputs.address) {
    const message: CheckoutMessage = {
      type: 'error',
      code: 'missing',
      content: 'A shipping address is needed for the items that ship',
      target: { kind: 'address' },
      resolution: 'requires_buyer_input',
    };
    return { options: [], selected: null, messages: [message] };
  }
  const country = inputs.address.country;
  const found = await availableShippingOptions(tx, tenantId, { country, currency });
  if (found.length === 0) {
    const message: CheckoutMessage = {
      type: 'error',
      code: 'invalid',
      content: `We do not ship to ${country}`,
      target: { kind: 'address', field: 'country' },
      resolution: 'requires_buyer_input',
    };
    return { options: [], selected: null, messages: [message] };
  }
  const options = found.map(
    (o): FulfillmentOption => ({
      id: o.id,
      type: 'shipping',
      title: o.name,
      description: `Arrives in ${o.minDays}-${o.maxDays} days`,
      carrier: null,
      earliestDeliveryTime: new Date(now.getTime() + o.minDays * DAY_MS).toISOString(),
      latestDeliveryTime: new Date(now.getTime() + o.maxDays * DAY_MS).toISOString(),
      amount: o.amountCents,
    }),
  );
  const asked = inputs.selectedFulfillmentOptionId;
  if (asked && !options.some((o) => o.id === asked)) {
    const message: CheckoutMessage = {
      type: 'error',
      code: 'invalid',
      content: `Fulfillment option ${asked} is not offered for this address`,
      target: { kind: 'fulfillment' },
      resolution: 'recoverable',
    };
    return { options, selected: null, messages: [message] };
  }
  // None chosen yet: the cheapest is preselected, as a shop's checkout does.
  return { options, selected: asked ?? (options[0] as FulfillmentOption).id, messages: [] };
}

function itemMessages(inputs: SessionInputs, contents: CartContents): CheckoutMessage[] {
  const messages = contents.problems.flatMap((problem, index): CheckoutMessage[] => {
    if (!problem) return [];
    const { code, text } = ITEM_PROBLEMS[problem];
    const id = inputs.items[index]?.productId ?? '';
    return [
      {
        type: 'error',
        code,
        content: text(id),
        target: { kind: 'item', index, field: problem === 'quantity' ? 'quantity' : 'id' },
        resolution: 'recoverable',
      },
    ];
  });
  if (inputs.items.length === 0)
    messages.push({
      type: 'error',
      code: 'missing',
      content: 'Add at least one item',
      resolution: 'recoverable',
    });
  return messages;
}

/**
 * Lines that cannot be bought now, read in one round trip: a draft product (`invalid`, not
 * offered) or a tracked one asking more than is available (`out_of_stock`); the session is then
 * not ready, and the reservation still decides at completion.
 */
async function availabilityMessages(
  tx: Tx,
  tenantId: string,
  inputs: SessionInputs,
  lines: CheckoutLine[],
): Promise<CheckoutMessage[]> {
  if (lines.length === 0) return [];
  const ids = [...new Set(lines.map((l) => l.productId))];
  const [tracked, drafts] = await readTogether(tx, [
    trackedProductsRead(tenantId, ids),
    draftProductsRead(tenantId, ids),
  ]);
  const wanted = (productId: string) =>
    lines.filter((l) => l.productId === productId).reduce((n, l) => n + l.quantity, 0);
  return lines.flatMap((line): CheckoutMessage[] => {
    const stock = tracked.find((t) => t.productId === line.productId);
    const short = stock !== undefined && !stock.beyond && stock.available < wanted(line.productId);
    const draft = drafts.includes(line.productId);
    if (!short && !draft) return [];
    const index = inputs.items.findIndex((i) => i.productId === line.productId);
    return [
      {
        type: 'error',
        code: draft ? 'invalid' : 'out_of_stock',
        content: draft
          ? `Product ${line.productId} is not offered`
          : `Product ${line.productId} is out of stock for quantity ${line.quantity}`,
        target: { kind: 'item', index: Math.max(index, 0), field: 'id' },
        resolution: 'recoverable',
      },
    ];
  });
}

/** Decides the session from its inputs, in the caller's transaction (the cart is written). */
export async function decide(
  tx: Tx,
  tenantId: string,
  session: SessionCart,
  inputs: SessionInputs,
  now: Date,
): Promise<Decided> {
  const { contents, rejected } = await fillCart(tx, tenantId, session, inputs, now);
  const { lines, codeDiscount } = linesOf(contents);
  const fulfillment = await fulfillmentFor(tx, tenantId, lines, inputs, session.currency, now);
  const chosen = fulfillment.options.find((o) => o.id === fulfillment.selected);
  const itemsBase = lines.reduce((s, l) => s + l.baseAmount, 0);
  const itemsDiscount = lines.reduce((s, l) => s + l.discount, 0);
  const subtotal = itemsBase - itemsDiscount;
  const shipping = chosen?.amount ?? 0;
  const messages = [
    ...itemMessages(inputs, contents),
    ...(await availabilityMessages(tx, tenantId, inputs, lines)),
    ...fulfillment.messages,
    ...rejected.map(
      (r): CheckoutMessage => ({
        type: 'warning',
        code: 'discount_code_invalid',
        content: `Discount code ${r.code} does not apply (${r.reason})`,
        target: { kind: 'discount', code: r.code },
        resolution: 'recoverable',
      }),
    ),
  ];
  const promo = contents.cart.promo;
  return {
    status: messages.some((m) => m.type === 'error') ? 'not_ready' : 'ready',
    lines,
    fulfillmentOptions: fulfillment.options,
    selectedFulfillmentOptionId: fulfillment.selected,
    appliedDiscounts:
      promo?.applies && codeDiscount > 0
        ? [{ code: promo.code, title: `Code ${promo.code}`, amount: codeDiscount }]
        : [],
    rejectedDiscounts: rejected,
    totals: {
      itemsBase,
      itemsDiscount,
      subtotal,
      discount: codeDiscount,
      fulfillment: shipping,
      tax: 0,
      total: subtotal + shipping,
    },
    messages,
  };
}
