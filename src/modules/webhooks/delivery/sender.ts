import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { isLoopbackAddress, isLoopbackUrl, isNonPublicAddress } from '../url-safety.js';
import { ATTEMPT_TEXT_LIMIT, storableText } from './storable-text.js';

/** SPEC.md section 8: an attempt succeeds on a 2xx within 10 seconds. */
const DELIVERY_TIMEOUT_MS = 10_000;

export interface SendOutcome {
  /** Any 2xx. Redirects are not followed: a 3xx is a failure. */
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  /** The first ATTEMPT_TEXT_LIMIT characters of the response body, as storable text. */
  responseBody: string | null;
  /** Why the attempt failed without a 2xx: network error, timeout, blocked target. */
  error: string | null;
  /** The receiver's Retry-After, in seconds from now, when it sent one. */
  retryAfterSeconds: number | null;
  /** No answer within the time limit: counts towards backing the receiver off. */
  timedOut: boolean;
}

export interface Sender {
  /** `cancel` ends the attempt early (its webhook was deleted or disabled): a failed attempt. */
  send(
    url: string,
    body: string,
    headers: Record<string, string>,
    cancel?: AbortSignal,
    /** `loopback`: the tenant allows loopback targets (sandbox): a loopback URL is sent to, over http too. */
    target?: { loopback: boolean },
  ): Promise<SendOutcome>;
  close(): Promise<void>;
}

export interface SenderOptions {
  /** Deliver to loopback/private/reserved addresses too (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: boolean;
  /** PEM of extra trusted certificate authorities (WEBHOOK_CA_FILE). */
  caFile?: string | undefined;
  timeoutMs?: number;
}

class BlockedTargetError extends Error {}

/**
 * DNS for delivery connections: the addresses the socket will connect to are the ones checked,
 * so a name that resolved to a public address at creation and to a private one now (DNS
 * rebinding) is refused at send time.
 */
function guardedLookup(allowed: 'any' | 'public' | 'loopback'): LookupFunction {
  const refused = (address: string) =>
    allowed === 'public'
      ? isNonPublicAddress(address)
      : allowed === 'loopback' && !isLoopbackAddress(address);
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = addresses.find((a) => refused(a.address));
      if (blocked) {
        const error = new BlockedTargetError(`${hostname} resolves to non-public address ${blocked.address}`);
        return callback(error as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Seconds to wait from a Retry-After value (delta-seconds or an HTTP date); null when absent or unreadable. */
function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    // Enough kept: drop the rest (and the connection) rather than read a large body.
    if (size > ATTEMPT_TEXT_LIMIT * 4) {
      body.destroy();
      break;
    }
  }
  // Invalid UTF-8 decodes to U+FFFD; the cut and the characters PostgreSQL refuses (NUL, half an
  // emoji) are made safe here, so whatever the receiver sent can be recorded.
  return storableText(Buffer.concat(chunks).toString('utf8'), ATTEMPT_TEXT_LIMIT);
}

const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The attempt's time limit ran out (ours, or one of undici's that fire with it). */
const isTimeout = (err: unknown): boolean =>
  err instanceof Error &&
  (err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    UNDICI_TIMEOUTS.has(String((err as NodeJS.ErrnoException).code)));

const errorText = (err: unknown, timeoutMs: number): string => {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `timed out after ${timeoutMs} ms`;
  }
  const cause = err instanceof Error && err.cause instanceof BlockedTargetError ? err.cause : err;
  if (cause instanceof BlockedTargetError) return `blocked target: ${cause.message}`;
  const code = (cause as NodeJS.ErrnoException)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
};

/**
 * Sends deliveries over HTTPS with keep-alive connections (one pool per receiver origin),
 * the 10-second limit on the whole attempt, no redirects, and the non-public-address check on
 * every connection.
 */
export function createSender(options: SenderOptions): Sender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  const agentFor = (allowed: 'any' | 'public' | 'loopback') =>
    new Agent({
      connect: { lookup: guardedLookup(allowed), ...(ca ? { ca } : {}) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 30_000,
      connections: 16,
    });
  const agent = agentFor(options.allowPrivateTargets ? 'any' : 'public');
  // Loopback targets a sandbox tenant allowed: connections only to loopback addresses.
  let loopbackAgent: Agent | undefined;
  return {
    async send(url, body, headers, cancel, target) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      const local = !options.allowPrivateTargets && target?.loopback === true && isLoopbackUrl(url);
      if (!options.allowPrivateTargets && !local && isIP(host) && isNonPublicAddress(host)) {
        const hint = isLoopbackAddress(host) ? ' (the tenant has not turned on allowLoopbackWebhooks)' : '';
        return failed(`blocked target: ${host} is a non-public address${hint}`, elapsed());
      }
      if (local) loopbackAgent ??= agentFor('loopback');
      try {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: local ? (loopbackAgent as Agent) : agent,
          signal: cancel
            ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel])
            : AbortSignal.timeout(timeoutMs),
        });
        const responseBody = await readLimited(response.body);
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return {
          ok,
          responseStatus: response.statusCode,
          durationMs: elapsed(),
          responseBody,
          error: null,
          retryAfterSeconds: ok ? null : parseRetryAfter(response.headers['retry-after'], new Date()),
          timedOut: false,
        };
      } catch (err) {
        if (cancel?.aborted) return failed(`cancelled: ${String(cancel.reason)}`, elapsed());
        return failed(errorText(err, timeoutMs), elapsed(), isTimeout(err));
      }
    },
    close: async () => {
      await Promise.all([agent.close(), loopbackAgent?.close()]);
    },
  };
}

const failed = (error: string, durationMs: number, timedOut = false): SendOutcome => ({
  ok: false,
  responseStatus: null,
  durationMs,
  responseBody: null,
  error,
  retryAfterSeconds: null,
  timedOut,
});
