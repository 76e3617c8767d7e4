/** The API as the console calls it: same origin, the session cookie, and the CSRF header on writes. */

export interface NextAction {
  rel: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  href: string;
  requiredScope: string | null;
  allowed: boolean;
  reason?: string;
  operationId?: string;
  arguments?: Record<string, unknown>;
}

export interface Answer<T> {
  data: T;
  nextActions: NextAction[];
  meta?: { limit?: number; nextCursor?: string | null };
}

export interface ErrorDetail {
  field?: string;
  rule?: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

/** The session's CSRF token, sent as `X-CSRF-Token` on every state-changing request. */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

export const API = '/api/v1';

export async function call<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
  const url = path.startsWith(API) ? path : `${API}${path}`;
  const res = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return { data: undefined as T, nextActions: [] };
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new ApiError(
      res.status,
      json.code ?? 'error',
      json.error ?? `HTTP ${res.status}`,
      json.details ?? [],
    );
  }
  return json as Answer<T>;
}

export const get = <T>(path: string) => call<T>('GET', path);

/** A query string of the set values. */
export function query(values: Record<string, string | number | undefined | null>) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values))
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export const errorText = (e: unknown) =>
  e instanceof ApiError
    ? `${e.message}${e.details.length ? ` (${e.details.map((d) => d.field ?? d.message).join(', ')})` : ''}`
    : String(e);

export function money(cents: number | null | undefined, currency = 'USD') {
  if (cents === null || cents === undefined) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** Errors of a form: messages by form field, and what names no field of the form. */
export interface FormErrors {
  fields: Record<string, string>;
  general: string | null;
}

export const noFormErrors: FormErrors = { fields: {}, general: null };

/**
 * An API error split by the form field it names (the error body's `details[].field`): `placeOf`
 * says which field of the form an API field is (`path.key` → `key`), or undefined for none; what
 * names no field of the form is in `general`, with the message.
 */
export function fieldErrors(e: unknown, placeOf: (apiField: string) => string | undefined): FormErrors {
  const fields: Record<string, string> = {};
  if (!(e instanceof ApiError) || e.details.length === 0) return { fields, general: errorText(e) };
  const left: ErrorDetail[] = [];
  for (const d of e.details) {
    const place = d.field === undefined ? undefined : placeOf(d.field);
    if (place === undefined || d.field === undefined) {
      left.push(d);
      continue;
    }
    // Shown at its field, the message need not name it again: `title must ...` → `must ...`.
    const message = d.message.startsWith(`${d.field} `) ? d.message.slice(d.field.length + 1) : d.message;
    fields[place] = fields[place] ? `${fields[place]}; ${message}` : message;
  }
  const general = left.length > 0 ? `${e.message} (${left.map((d) => d.message).join(', ')})` : null;
  return { fields, general };
}
