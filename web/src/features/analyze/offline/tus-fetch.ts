/**
 * A small tus 1.0 client on `fetch` alone: usable in the service worker, where tus-js-client
 * cannot run (it touches `window`). Creation (POST with Upload-Length and Upload-Metadata), HEAD
 * for the offset, PATCH chunks read from the Blob in slices. After any failed request it asks the
 * server where it stands (HEAD) and continues from there: no byte is sent twice, none is skipped.
 */

export const TUS_VERSION = '1.0.0';

/** A request that failed: the HTTP status (0 when no answer came) and the server's `detail` when it sent one. */
export class UploadHttpError extends Error {
  readonly status: number;
  readonly detail: string | null;
  constructor(status: number, detail: string | null, message?: string) {
    super(message ?? detail ?? `Request failed with status ${status}`);
    this.name = 'UploadHttpError';
    this.status = status;
    this.detail = detail;
  }
}

type Headers = Record<string, string>;

export interface TusFetchOptions {
  /** The creation endpoint, e.g. https://host/uploads. */
  endpoint: string;
  /** Continue this upload instead of creating a new one. */
  uploadUrl: string | null;
  /** Headers of every request (the bearer token, the language); asked again before each request. */
  headers?: () => Headers | Promise<Headers>;
  metadata?: Record<string, string>;
  chunkSize: number;
  /** Delays between automatic retries of a request that got no answer, a 5xx, 408, 409, 423 or 429. */
  retryDelays?: number[];
  /** Called once the server created the upload (keep it, to resume later). */
  onUrl?: (url: string) => void | Promise<void>;
  /** Called with the offset the server confirmed (after HEAD and after every chunk). */
  onProgress?: (offset: number, total: number) => void | Promise<void>;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** A request with no answer after this long counts as a network failure (default 60 s). */
  requestTimeoutMs?: number;
}

/** Base64 of a string's UTF-8 bytes (Turkish file names too), as Upload-Metadata wants it. */
export function base64Utf8(value: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function encodeMetadata(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key} ${base64Utf8(value)}`)
    .join(',');
}

/** The upload's id: the last segment of its address. */
export function uploadIdOf(url: string): string {
  return new URL(url, 'http://x').pathname.split('/').filter(Boolean).pop() ?? '';
}

const RETRYABLE = (status: number) => status === 0 || status >= 500 || status === 408 || status === 409 || status === 423 || status === 429;

async function detailOf(response: Response): Promise<string | null> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') return body.detail;
  } catch {
    /* not JSON (tus answers some errors in plain text) */
  }
  return null;
}

function offsetHeader(response: Response): number {
  const value = Number(response.headers.get('Upload-Offset'));
  if (!Number.isSafeInteger(value) || value < 0) throw new UploadHttpError(0, null, 'The server sent no valid Upload-Offset');
  return value;
}

/** Uploads `file` and resolves with the upload's address once the server has every byte. */
export async function tusUpload(file: Blob, options: TusFetchOptions): Promise<string> {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const delays = options.retryDelays ?? [0, 1000, 3000, 5000];
  const total = file.size;

  const request = async (url: string, init: RequestInit, expect: number[]): Promise<Response> => {
    const headers = { 'Tus-Resumable': TUS_VERSION, ...(await options.headers?.()), ...(init.headers as Headers | undefined) };
    let response: Response;
    try {
      const timeout = options.requestTimeoutMs ?? 60_000;
      const signal = typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(timeout) : undefined;
      response = await doFetch(url, { ...init, headers, cache: 'no-store', signal });
    } catch (error) {
      throw new UploadHttpError(0, null, error instanceof Error ? error.message : 'Network error');
    }
    if (!expect.includes(response.status)) throw new UploadHttpError(response.status, await detailOf(response));
    return response;
  };

  const create = async (): Promise<string> => {
    const headers: Headers = { 'Upload-Length': String(total) };
    if (options.metadata) headers['Upload-Metadata'] = encodeMetadata(options.metadata);
    const response = await request(options.endpoint, { method: 'POST', headers }, [201]);
    const location = response.headers.get('Location');
    if (!location) throw new UploadHttpError(0, null, 'The server created the upload without an address');
    return new URL(location, options.endpoint).href;
  };

  let url = options.uploadUrl;
  let offset: number | null = null;
  let attempt = 0;
  for (;;) {
    try {
      if (!url) {
        url = await create();
        offset = 0;
        await options.onUrl?.(url);
      }
      if (offset === null) {
        offset = offsetHeader(await request(url, { method: 'HEAD' }, [200, 204]));
        if (offset > total) throw new UploadHttpError(409, null, 'The server has more bytes than the file');
      }
      await options.onProgress?.(offset, total);
      while (offset < total) {
        const end = Math.min(total, offset + Math.max(1, options.chunkSize));
        const response = await request(
          url,
          {
            method: 'PATCH',
            headers: { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
            body: file.slice(offset, end),
          },
          [204, 200],
        );
        offset = offsetHeader(response);
        attempt = 0;
        await options.onProgress?.(offset, total);
      }
      return url;
    } catch (error) {
      // Only the server's and the network's failures are retried; the caller's own errors go up.
      if (!(error instanceof UploadHttpError) || !RETRYABLE(error.status) || attempt >= delays.length) throw error;
      await sleep(delays[attempt++] ?? 0);
      // Whatever happened, the server's offset is the truth: ask it before sending more.
      offset = null;
    }
  }
}
