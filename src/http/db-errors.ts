const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EPIPE',
]);
// SQLSTATE: statement timeout (the database did not answer in time), admin/crash shutdown,
// cannot connect now, too many connections.
const PG_UNAVAILABLE = new Set(['57014', '57P01', '57P02', '57P03', '53300']);
const MESSAGES = [
  /connection terminated/i,
  /PGlite is closed/i,
  /Cannot use a pool after calling end/i,
  /Client has encountered a connection error/i,
];

/** The pool's bounded wait for a free connection ran out (pg-pool's message): busy, not down. */
const POOL_WAIT = /timeout exceeded when trying to connect/i;

/** True when every connection stayed busy for the whole wait (`DB_POOL_WAIT_MS`). */
export function isPoolExhausted(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && POOL_WAIT.test(message)) return true;
  }
  return false;
}

/**
 * True when `err` (or anything in its cause chain; Drizzle wraps driver errors) means the
 * database cannot be reached, as opposed to a query that was wrong.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || PG_UNAVAILABLE.has(code) || code.startsWith('08'))
    ) {
      return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && MESSAGES.some((re) => re.test(message))) return true;
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
