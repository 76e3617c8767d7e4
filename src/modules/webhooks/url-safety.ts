import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError, type ErrorDetail } from '../../core/errors.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
const DNS_TIMEOUT_MS = 5_000;

/**
 * Addresses a webhook may not target unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true: everything that
 * is not public unicast (IANA special-purpose registries). Matching uses node:net's BlockList,
 * built into Node and maintained with it, rather than hand-written prefix arithmetic; its IPv4
 * rules also match IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`).
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: tunnels to an arbitrary IPv4 address
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** IPv4 embedded in NAT64 `64:ff9b::/96`, which would otherwise reach any IPv4 address. */
function embeddedNat64(address: string): string | undefined {
  const match = /^64:ff9b::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (match?.[1] === undefined || match[2] === undefined) {
    const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return dotted?.[1];
  }
  const hi = Number.parseInt(match[1], 16);
  const lo = Number.parseInt(match[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Whether an IP address (v4 or v6) is anything but public unicast. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const nat64 = embeddedNat64(address);
  if (nat64 !== undefined) return NON_PUBLIC.check(nat64, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

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
