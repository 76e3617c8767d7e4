import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config.js';
import { AppError } from '../../../core/errors.js';
import { isNonPublicAddress, webhookUrlProblem } from '../../webhooks/index.js';
import { type PlatformProfile, platformProfileOf } from './negotiation.js';

// Fetching a platform's profile (overview.md, "Profile Requirements" > "Fetching"): HTTPS to a
// public address, by the webhook targets' rules (src/modules/webhooks/url-safety.ts), checked
// again on the connection's own DNS answer; in the sandbox also plain HTTP to loopback (local
// platforms and tests). No redirects, bounded time and size, and a bounded cache by URL whose TTL
// honours Cache-Control max-age within [60 s, 1 h].

const FETCH_TIMEOUT_MS = 5_000;
const MAX_PROFILE_BYTES = 256 * 1024;
const URL_MAX = 2048;
const TTL_FLOOR_S = 60;
const TTL_CEILING_S = 3600;
const CACHE_ENTRIES = 500;

export interface FetchDeps {
  config: Pick<Config, 'appEnv' | 'webhookAllowPrivateTargets'>;
  clock: Clock;
}

const invalid = (message: string) => new AppError('invalid_profile_url', `Platform profile URL: ${message}`);
const unreachable = (url: string, why: string) =>
  new AppError('profile_unreachable', `Unable to fetch the platform profile ${url}: ${why}`);

const isLoopback = (address: string) => isIP(address) !== 0 && ipaddr.process(address).range() === 'loopback';
const isLoopbackHost = (host: string) => host === 'localhost' || isLoopback(host);

/** The profile URL as we may fetch it: https to a public host, or (sandbox) http to loopback. */
export async function checkProfileUrl(raw: string, deps: FetchDeps): Promise<URL> {
  if (raw.length > URL_MAX) throw invalid(`longer than ${URL_MAX} characters`);
  if (!URL.canParse(raw)) throw invalid(`${raw} is not an absolute URL`);
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') throw invalid('it must not carry a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.protocol === 'http:' && deps.config.appEnv === 'sandbox' && isLoopbackHost(host)) return url;
  if (url.protocol !== 'https:') throw invalid(`it must use https (got ${url.protocol})`);
  const problem = await webhookUrlProblem(raw, deps.config.webhookAllowPrivateTargets);
  if (problem) throw invalid(problem.message.replace(/^url /, ''));
  return url;
}

/** DNS for profile connections: the addresses connected to are the ones checked (no rebinding). */
function guardedLookup(allow: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = addresses.find((a) => !allow(a.address));
      if (blocked || addresses.length === 0) {
        return callback(
          new Error(`${hostname} resolves to a refused address`) as NodeJS.ErrnoException,
          '',
          0,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

const agents = new Map<string, Agent>();
function agentFor(kind: 'loopback' | 'public' | 'any'): Agent {
  let agent = agents.get(kind);
  if (!agent) {
    const allow =
      kind === 'loopback'
        ? isLoopback
        : kind === 'public'
          ? (a: string) => !isNonPublicAddress(a)
          : () => true;
    agent = new Agent({
      connect: { lookup: guardedLookup(allow), timeout: FETCH_TIMEOUT_MS },
      headersTimeout: FETCH_TIMEOUT_MS,
      bodyTimeout: FETCH_TIMEOUT_MS,
      keepAliveTimeout: 1_000,
    });
    agents.set(kind, agent);
  }
  return agent;
}

/** Seconds to keep a profile: its max-age (s-maxage first), within [60 s, 1 h]; 60 s without one. */
export function ttlSeconds(cacheControl: string | string[] | undefined): number {
  const text = Array.isArray(cacheControl) ? cacheControl.join(',') : (cacheControl ?? '');
  const match =
    /(?:^|,)\s*s-maxage\s*=\s*"?(\d+)/i.exec(text) ?? /(?:^|,)\s*max-age\s*=\s*"?(\d+)/i.exec(text);
  const seconds = match ? Number(match[1]) : TTL_FLOOR_S;
  return Math.min(TTL_CEILING_S, Math.max(TTL_FLOOR_S, seconds));
}

async function readBody(body: AsyncIterable<Buffer> & { destroy(): void }, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_PROFILE_BYTES) {
      body.destroy();
      throw new AppError(
        'profile_malformed',
        `The platform profile ${url} is larger than ${MAX_PROFILE_BYTES} bytes`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET the profile: 2xx JSON only (a redirect is a failure), its TTL from Cache-Control. */
async function download(url: URL, deps: FetchDeps): Promise<{ json: unknown; ttl: number }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const kind =
    url.protocol === 'http:' ? 'loopback' : deps.config.webhookAllowPrivateTargets ? 'any' : 'public';
  if (kind === 'public' && isIP(host) && isNonPublicAddress(host))
    throw invalid(`${host} is not a public address`);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      dispatcher: agentFor(kind),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (err) {
    throw unreachable(url.href, err instanceof Error ? err.message : String(err));
  }
  if (response.statusCode < 200 || response.statusCode > 299) {
    await response.body.dump().catch(() => {});
    throw unreachable(url.href, `it answered HTTP ${response.statusCode}`);
  }
  const text = await readBody(response.body, url.href);
  try {
    return { json: JSON.parse(text), ttl: ttlSeconds(response.headers['cache-control']) };
  } catch {
    throw new AppError('profile_malformed', `The platform profile ${url.href} is not valid JSON`);
  }
}

interface Cached {
  profile: PlatformProfile;
  expiresAt: number;
}

/** Profiles by URL, per deps (one app): least recently used first, at most CACHE_ENTRIES. */
const caches = new WeakMap<object, Map<string, Cached>>();

/**
 * The platform profile at `raw`, validated: from the cache while fresh, else checked, fetched and
 * cached. Throws invalid_profile_url (400), profile_unreachable (424) or profile_malformed (422).
 */
export async function platformProfile(raw: string, deps: FetchDeps): Promise<PlatformProfile> {
  const cache = caches.get(deps) ?? new Map<string, Cached>();
  caches.set(deps, cache);
  const now = deps.clock.now().getTime();
  const hit = cache.get(raw);
  if (hit && hit.expiresAt > now) {
    cache.delete(raw);
    cache.set(raw, hit);
    return hit.profile;
  }
  const url = await checkProfileUrl(raw, deps);
  const { json, ttl } = await download(url, deps);
  const profile = platformProfileOf(json);
  cache.delete(raw);
  cache.set(raw, { profile, expiresAt: now + ttl * 1000 });
  for (const key of cache.keys()) {
    if (cache.size <= CACHE_ENTRIES) break;
    cache.delete(key);
  }
  return profile;
}
