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

const problem = (rule: string, message: string): ErrorDetail => ({ field: 'url', rule, message });

/** The URL's syntax problem (rules `format`, `maxLength`, `https`, `credentials`), if any. */
export function urlSyntaxProblem(raw: string): ErrorDetail | undefined {
  if (raw.length > WEBHOOK_URL_MAX_LENGTH)
    return problem('maxLength', `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem('format', 'url must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:') return problem('https', `url must use https (got ${url.protocol})`);
  if (url.username !== '' || url.password !== '')
    return problem('credentials', 'url must not contain a username or password');
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
 * Every problem with `raw` as a webhook target: the syntax, then (unless private targets are
 * allowed) every address its host resolves to must be public (rule `public_target`; `resolvable`
 * when the name does not resolve). Checked at creation and on URL change; the delivery worker
 * checks again before each attempt, since DNS answers change.
 */
export async function webhookUrlProblem(
  raw: string,
  allowPrivateTargets: boolean,
): Promise<ErrorDetail | undefined> {
  const syntax = urlSyntaxProblem(raw);
  if (syntax) return syntax;
  if (allowPrivateTargets) return undefined;
  const host = new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return problem('resolvable', `url host ${host} does not resolve`);
  }
  if (addresses.length === 0) return problem('resolvable', `url host ${host} does not resolve`);
  const blocked = addresses.find(isNonPublicAddress);
  if (blocked !== undefined) {
    return problem(
      'public_target',
      `url must point to a public address; ${host} resolves to ${blocked} (loopback, private, link-local or reserved)`,
    );
  }
  return undefined;
}

/** Throws 400 validation_failed naming `url` when the target is not acceptable. */
export async function assertWebhookUrl(raw: string, allowPrivateTargets: boolean): Promise<void> {
  const detail = await webhookUrlProblem(raw, allowPrivateTargets);
  if (detail) throw new AppError('validation_failed', detail.message, [detail]);
}
