import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError, type ErrorDetail } from '../../core/errors.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
const DNS_TIMEOUT_MS = 5_000;

/**
 * Whether an IP address may not be a webhook target (unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true):
 * everything but public unicast. Classified by ipaddr.js (its ranges follow the IANA
 * special-purpose registries), not by hand: IPv4-mapped and IPv4-compatible IPv6 forms
 * (`::ffff:127.0.0.1`, `::127.0.0.1`) are judged as the IPv4 address they carry, and IPv6 is
 * allowed only inside global unicast `2000::/3`, so `::ffff:0:127.0.0.1` (SIIT) and other
 * translation or reserved forms are refused. NAT64 (`64:ff9b::/96`) is judged by the IPv4 address
 * it embeds.
 */
export function isNonPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return true;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.range() === 'rfc6052') return isNonPublicAddress(v6.toByteArray().slice(12).join('.'));
  return v6.range() !== 'unicast' || !v6.match(GLOBAL_UNICAST);
}

const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

const problem = (rule: string, message: string, field = 'url'): ErrorDetail => ({ field, rule, message });

/** A loopback host: `localhost` (and `*.localhost`), 127.0.0.0/8, ::1. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isLoopbackAddress(host);
}

/**
 * The URL's syntax problem (rules `format`, `maxLength`, `https`, `credentials`), if any. `http`:
 * plain http is accepted to a loopback host (an agent platform running on the same machine; its
 * address is refused anyway unless private targets are allowed).
 */
export function urlSyntaxProblem(
  raw: string,
  options: { field?: string; http?: 'loopback' } = {},
): ErrorDetail | undefined {
  const field = options.field ?? 'url';
  if (raw.length > WEBHOOK_URL_MAX_LENGTH)
    return problem('maxLength', `${field} must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem('format', `${field} must be an absolute URL, e.g. https://example.com/webhooks`, field);
  }
  const loopbackHttp =
    options.http === 'loopback' && url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp)
    return problem('https', `${field} must use https (got ${url.protocol})`, field);
  if (url.username !== '' || url.password !== '')
    return problem('credentials', `${field} must not contain a username or password`, field);
  return undefined;
}

async function resolveAll(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), DNS_TIMEOUT_MS);
  });
  try {
    const results = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return results.map((r) => r.address);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this tenant's webhooks may target loopback `http://` URLs: `allowed` (the tenant turned
 * `allowLoopbackWebhooks` on, in the sandbox), `off` (sandbox, not turned on) or `production`
 * (never). Only changes what a refusal says unless `allowed`.
 */
export type LoopbackPolicy = 'allowed' | 'off' | 'production';

const LOOPBACK_HINT: Record<Exclude<LoopbackPolicy, 'allowed'>, string> = {
  off:
    '; for local development turn on loopback targets in this sandbox: PATCH /api/v1/admin/settings ' +
    '{"allowLoopbackWebhooks": true} (or run `commerce-agent webhooks listen --forward-to <url>`)',
  production: '; loopback http targets (allowLoopbackWebhooks) exist only in the sandbox environment',
};

/** A loopback target while the policy allows one: http or https, and every address loopback. */
async function loopbackProblem(raw: string): Promise<ErrorDetail | undefined> {
  const host = new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return problem('resolvable', `url host ${host} does not resolve`);
  }
  const other = addresses.find((a) => !isLoopbackAddress(a));
  if (addresses.length === 0 || other !== undefined)
    return problem('public_target', `url ${host} must resolve to loopback addresses only (got ${other})`);
  return undefined;
}

/**
 * Every problem with `raw` as a webhook target: the syntax, then (unless private targets are
 * allowed) every address its host resolves to must be public (rule `public_target`; `resolvable`
 * when the name does not resolve). With `loopback` `allowed`, a URL whose host is loopback passes
 * over http too when all its addresses are loopback; otherwise a refused loopback URL's message
 * says how to develop locally. Checked at creation and on URL change; the delivery worker checks
 * again before each attempt, since DNS answers change (and the setting may be turned off).
 */
export async function webhookUrlProblem(
  raw: string,
  allowPrivateTargets: boolean,
  /** The subscribing tenant's policy; absent (not a subscription, e.g. a profile URL): no hint. */
  loopback?: LoopbackPolicy,
): Promise<ErrorDetail | undefined> {
  const local = loopback === 'allowed' && isLoopbackUrl(raw);
  if (local && !allowPrivateTargets)
    return urlSyntaxProblem(raw, { http: 'loopback' }) ?? (await loopbackProblem(raw));
  const found =
    urlSyntaxProblem(raw, { http: local ? 'loopback' : undefined }) ??
    (allowPrivateTargets ? undefined : await addressProblem(raw, 'url'));
  if (!found || loopback === undefined || loopback === 'allowed' || !isLoopbackUrl(raw)) return found;
  if (found.rule !== 'https' && found.rule !== 'public_target') return found;
  return { ...found, message: `${found.message}${LOOPBACK_HINT[loopback]}` };
}

/** Whether `raw` is an http(s) URL to a loopback host (`localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** Whether an IP address is loopback (IPv4-mapped forms judged as their IPv4 address). */
export function isLoopbackAddress(address: string): boolean {
  return isIP(address) !== 0 && ipaddr.process(address).range() === 'loopback';
}

/** Unless every address the URL's host resolves to is public: rule `public_target` (or `resolvable`). */
async function addressProblem(raw: string, field: string): Promise<ErrorDetail | undefined> {
  const host = new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return problem('resolvable', `${field} host ${host} does not resolve`, field);
  }
  if (addresses.length === 0) return problem('resolvable', `${field} host ${host} does not resolve`, field);
  const blocked = addresses.find(isNonPublicAddress);
  if (blocked !== undefined) {
    return problem(
      'public_target',
      `${field} must point to a public address; ${host} resolves to ${blocked} (loopback, private, link-local or reserved)`,
      field,
    );
  }
  return undefined;
}

/**
 * Every problem with `raw` as an agent platform's webhook URL (UCP's `webhook_url`), named as
 * `field`: the webhook rules (https, no credentials, public addresses), except that plain http to
 * a loopback host passes when private targets are allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS, for a
 * platform running beside the service in development). Check it when the platform hands the URL
 * over; enqueuePlatformDelivery checks the syntax again, and the worker the addresses at sending.
 */
export async function platformUrlProblem(
  raw: string,
  allowPrivateTargets: boolean,
  field = 'webhook_url',
): Promise<ErrorDetail | undefined> {
  const syntax = urlSyntaxProblem(raw, { field, http: allowPrivateTargets ? 'loopback' : undefined });
  return syntax ?? (allowPrivateTargets ? undefined : await addressProblem(raw, field));
}

/** Throws 400 validation_failed naming `url` when the target is not acceptable. */
export async function assertWebhookUrl(
  raw: string,
  allowPrivateTargets: boolean,
  loopback: LoopbackPolicy,
): Promise<void> {
  const detail = await webhookUrlProblem(raw, allowPrivateTargets, loopback);
  if (detail) throw new AppError('validation_failed', detail.message, [detail]);
}
