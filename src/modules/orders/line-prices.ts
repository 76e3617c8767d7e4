import type { BillingAdapter } from '../../billing/index.js';
import { AppError, validationFailed } from '../../core/errors.js';
import type { PricedLine } from '../pricing/index.js';
import type { OrderLine } from './tables.js';

export interface LineInput {
  productId: string;
  quantity: number;
  priceCents?: number;
}

export interface PricedOrderLines {
  lines: (OrderLine & { productType: string })[];
  totalCents: number;
  priceRules: { productId: string; id: string; name: string; chargeId: string }[];
  offers: { productId: string; id: string; name: string; discountCents: number }[];
  quotes: { productId: string; chargeId: string; amountCents: number }[];
  hints: { field: string; submitted: number; resolved: number }[];
}

/**
 * Prices order lines (`priced`: the engine's lines for `items`, from priceLines or
 * priceLinesWith): modeled charges by the engine (price rules, tiers, offers) and passthrough
 * charges by the billing adapter's live quote. Unknown or inactive products, or another
 * currency, are 400 naming the line; a needed quote the adapter cannot give is 502.
 * Reads only (the quote): call it before the write transaction.
 */
export async function priceOrderLines(
  priced: readonly (PricedLine | undefined)[],
  items: readonly LineInput[],
  currency: string,
  adapter: () => Promise<BillingAdapter | null>,
  /** Called with the engine's prices (quotes not yet added) before the live quote is asked for. */
  beforeQuote?: (engineOnly: PricedOrderLines) => void,
): Promise<PricedOrderLines> {
  const result: PricedOrderLines = {
    lines: [],
    totalCents: 0,
    priceRules: [],
    offers: [],
    quotes: [],
    hints: [],
  };
  const quoteLines: Parameters<NonNullable<BillingAdapter['quoteCart']>>[0] = [];
  const quoteLineOf: number[] = []; // order line index of each quote line
  const quotedCents = items.map(() => 0);
  priced.forEach((line, i) => {
    const field = `items.${i}.productId`;
    if (!line?.product.active)
      throw validationFailed(field, 'exists', `${field} is not an active product of this tenant`);
    if (line.product.currency !== currency) {
      throw validationFailed(
        field,
        'currency',
        `${field} is priced in ${line.product.currency}, the order in ${currency}`,
      );
    }
    for (const c of line.resolution.charges) {
      if (c.kind === 'passthrough') {
        quoteLines.push({
          productId: line.product.id,
          chargeId: c.chargeId,
          chargeName: c.name,
          quantity: line.resolution.quantity,
          currency,
        });
        quoteLineOf.push(i);
      }
    }
    result.priceRules.push(
      ...line.resolution.appliedPriceRules.map((r) => ({ productId: line.product.id, ...r })),
    );
    result.offers.push(...line.resolution.appliedOffers.map((o) => ({ productId: line.product.id, ...o })));
  });
  // The order's rules before any outside call (the live quote): a blocked order is 403 then.
  if (beforeQuote) {
    const engineOnly: PricedOrderLines = { ...result, lines: [], totalCents: 0, hints: [] };
    addLines(
      engineOnly,
      priced,
      items,
      quoteLineOf,
      items.map(() => 0),
    );
    beforeQuote(engineOnly);
  }
  if (quoteLines.length > 0) {
    const billing = await adapter();
    if (!billing?.quoteCart) {
      throw new AppError(
        'quote_unavailable',
        'Lines with passthrough charges need a live quote, and the billing integration cannot quote',
      );
    }
    const quote = await billing.quoteCart(quoteLines);
    if (!quote.ok)
      throw new AppError('quote_unavailable', `The billing system could not quote: ${quote.failure.message}`);
    result.quotes = quote.value.lines;
    // Quote lines answer our lines in order.
    quote.value.lines.forEach((q, k) => {
      const i = quoteLineOf[k];
      if (i !== undefined) quotedCents[i] = (quotedCents[i] ?? 0) + q.amountCents;
    });
  }
  addLines(result, priced, items, quoteLineOf, quotedCents);
  return result;
}

/** The priced lines into `result`, each with its quoted amount; differing price hints listed. */
function addLines(
  result: PricedOrderLines,
  priced: readonly (PricedLine | undefined)[],
  items: readonly LineInput[],
  quoteLineOf: readonly number[],
  quotedCents: readonly number[],
) {
  priced.forEach((line, i) => {
    if (!line) return;
    const quoted = quoteLineOf.includes(i);
    const totalCents = line.resolution.totalCents + (quotedCents[i] ?? 0);
    const quantity = line.resolution.quantity;
    const priceCents = Math.floor(totalCents / quantity);
    const hint = items[i]?.priceCents;
    if (hint !== undefined && hint !== priceCents)
      result.hints.push({ field: `items.${i}.priceCents`, submitted: hint, resolved: priceCents });
    result.lines.push({
      productId: line.product.id,
      productName: line.product.name,
      productType: line.product.type,
      quantity,
      priceCents,
      totalCents,
      priced: quoted ? 'quote' : 'engine',
    });
    result.totalCents += totalCents;
  });
}
