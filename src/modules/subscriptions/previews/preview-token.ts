import { createHash } from 'node:crypto';
import { validationFailed } from '../../../core/errors.js';
import type { ChangeTiming } from '../../catalog/index.js';
import type { GiveBack } from '../amounts/figures.js';

/**
 * A preview id is the preview's question, not its answer: which operation, on which subscription
 * at which version, at which instant, with which parameters, plus a digest of the figures. It is
 * stored nowhere (a preview writes nothing). The operation given it recomputes the figures with
 * the same code AT THE PREVIEW'S INSTANT: the subscription must still be at that version (else
 * 409) and the figures must hash the same (else 409: prices or rules changed meanwhile). A forged
 * id can only ask for what a real preview in the last 15 minutes would have answered.
 */

export const PREVIEW_TTL_MS = 15 * 60_000;

export type PreviewKind = 'plan_change' | 'add_on' | 'cancellation';

export interface PreviewClaims {
  k: PreviewKind;
  /** The subscription (the parent, for an add-on). */
  s: string;
  v: number;
  /** The preview's instant, ms since the epoch. */
  a: number;
  /** Target product (plan change) or add-on product. */
  p?: string;
  q?: number;
  /** Timing asked for (absent: the rule's, or the default). */
  t?: ChangeTiming;
  /** What a cancellation gives back (absent: `none`). */
  r?: GiveBack;
  /** Digest of the figures. */
  d: string;
}

export const figuresDigest = (figures: unknown) =>
  createHash('sha256').update(JSON.stringify(figures)).digest('base64url').slice(0, 22);

export function encodePreviewId(claims: PreviewClaims): string {
  return `pv1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
}

export const previewExpiry = (claims: { a: number }) => new Date(claims.a + PREVIEW_TTL_MS);

const invalid = (message: string, rule = 'format') => validationFailed('previewId', rule, message);

/**
 * The claims of `raw` when it is a preview of `kind` for `subscriptionId`, still valid at `now`.
 * Malformed, another operation's or another subscription's: 400; expired: 400 `expired`.
 */
export function readPreviewId(
  raw: string,
  kind: PreviewKind,
  subscriptionId: string,
  now: Date,
): PreviewClaims {
  if (!raw.startsWith('pv1.')) throw invalid('previewId is not a preview id');
  let claims: PreviewClaims;
  try {
    claims = JSON.parse(Buffer.from(raw.slice(4), 'base64url').toString('utf8')) as PreviewClaims;
  } catch {
    throw invalid('previewId is not a preview id');
  }
  if (
    typeof claims !== 'object' ||
    claims === null ||
    typeof claims.s !== 'string' ||
    typeof claims.v !== 'number' ||
    typeof claims.a !== 'number' ||
    typeof claims.d !== 'string'
  ) {
    throw invalid('previewId is not a preview id');
  }
  if (claims.k !== kind)
    throw invalid(`previewId is a preview of another operation (${claims.k})`, 'matches');
  if (claims.s !== subscriptionId) throw invalid('previewId previews another subscription', 'matches');
  if (claims.a > now.getTime()) throw invalid('previewId is dated in the future');
  if (now.getTime() > claims.a + PREVIEW_TTL_MS)
    throw invalid(`previewId expired at ${previewExpiry(claims).toISOString()}; preview again`, 'expired');
  return claims;
}
