import { env } from '@/config/env';

/** Default request timeout (spec section 9). */
export const REQUEST_TIMEOUT_MS = 60_000;

/** A failed call: the HTTP status (0 for network failure or timeout) and the server's `detail` when it sent one. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string | null;
  readonly code: string | null;

  constructor(status: number, detail: string | null, code: string | null = null, message?: string) {
    super(message ?? detail ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.code = code;
  }
}

/**
 * The reason the server gave for refusing a request (a 4xx problem's `detail`, already in the
 * language the app asked for), or null for failures it did not explain (network, 5xx).
 */
export function serverReason(error: unknown): string | null {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.detail ? error.detail : null;
}

let bearerToken: string | null = null;

/** Sets (or clears) the bearer credential sent with every call. */
export function setAuthToken(token: string | null): void {
  bearerToken = token;
}

export function getAuthToken(): string | null {
  return bearerToken;
}

let requestLanguage: string | null = null;

/**
 * The UI language, sent as Accept-Language with every call so the server answers in it (task and
 * equipment names, messages) rather than in the browser's own language.
 */
export function setRequestLanguage(language: string | null): void {
  requestLanguage = language;
}

export function languageHeaders(): Record<string, string> {
  return requestLanguage ? { 'Accept-Language': requestLanguage } : {};
}

export function apiUrl(path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return `${env.apiBase}${path.startsWith('/') ? path : `/${path}`}`;
}

export function authHeaders(): Record<string, string> {
  return bearerToken ? { Authorization: `Bearer ${bearerToken}` } : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a problem+json (or any JSON) error body into an ApiError. */
export function toApiError(status: number, body: unknown): ApiError {
  if (isRecord(body)) {
    const detail = typeof body.detail === 'string' ? body.detail : null;
    const code = typeof body.code === 'string' ? body.code : null;
    return new ApiError(status, detail, code);
  }
  return new ApiError(status, null);
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

function buildUrl(path: string, query?: Query): string {
  const url = apiUrl(path);
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${url}?${qs}` : url;
}

async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), options.timeoutMs ?? REQUEST_TIMEOUT_MS);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort);
  const headers: Record<string, string> = { Accept: 'application/json', ...languageHeaders(), ...authHeaders(), ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  try {
    const response = await fetch(buildUrl(path, options.query), { method, headers, body, signal: controller.signal });
    if (!response.ok) {
      let parsed: unknown = null;
      try {
        parsed = await response.json();
      } catch {
        parsed = null;
      }
      throw toApiError(response.status, parsed);
    }
    return response;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, null, null, error instanceof Error ? error.message : 'Network error');
  } finally {
    clearTimeout(timeout);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

async function json<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  const response = await send(method, path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => json<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => json<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => json<T>('PATCH', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => json<T>('PUT', path, { ...options, body }),
  delete: <T = void>(path: string, options?: RequestOptions) => json<T>('DELETE', path, options),
  /** Fetches a binary resource (e.g. an evidence image) with the bearer token. */
  blob: async (path: string, options?: RequestOptions): Promise<Blob> => (await send('GET', path, options)).blob(),
  head: async (path: string, options?: RequestOptions): Promise<boolean> => {
    try {
      await send('HEAD', path, options);
      return true;
    } catch {
      return false;
    }
  },
};
