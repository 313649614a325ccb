import { ApiError, REQUEST_TIMEOUT_MS, apiUrl, authHeaders, languageHeaders } from '@/lib/api-client';

export interface UploadProgress {
  loaded: number;
  total: number;
  /** 0–100 */
  percent: number;
  /** Estimated seconds left, null until it can be estimated. */
  secondsLeft: number | null;
}

/** Estimates progress from bytes sent so far and the time since the upload began. */
export function computeProgress(loaded: number, total: number, elapsedMs: number): UploadProgress {
  const percent = total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : 0;
  let secondsLeft: number | null = null;
  if (loaded > 0 && total > 0 && elapsedMs > 0) {
    const bytesPerMs = loaded / elapsedMs;
    secondsLeft = Math.max(0, Math.round((total - loaded) / bytesPerMs / 1000));
  }
  return { loaded, total, percent, secondsLeft };
}

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /** Abort when no byte moved for this long (the request timeout, applied to inactivity so big videos can upload). */
  idleTimeoutMs?: number;
  now?: () => number;
}

/** Multipart POST through XMLHttpRequest so the upload reports progress. */
export function uploadForm<T>(path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
  const now = options.now ?? (() => Date.now());
  const idleTimeoutMs = options.idleTimeoutMs ?? REQUEST_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const startedAt = now();
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => xhr.abort(), idleTimeoutMs);
    };
    const finish = () => {
      if (idleTimer) clearTimeout(idleTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => xhr.abort();

    xhr.open('POST', apiUrl(path));
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [key, value] of Object.entries({ ...languageHeaders(), ...authHeaders() })) xhr.setRequestHeader(key, value);
    xhr.upload.onprogress = (event) => {
      armIdle();
      if (event.lengthComputable) options.onProgress?.(computeProgress(event.loaded, event.total, now() - startedAt));
    };
    xhr.onload = () => {
      finish();
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as T);
        return;
      }
      const detail =
        typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string' ? body.detail : null;
      reject(new ApiError(xhr.status, detail));
    };
    xhr.onerror = () => {
      finish();
      reject(new ApiError(0, null, null, 'Network error'));
    };
    xhr.onabort = () => {
      finish();
      reject(new ApiError(0, null, null, 'Upload aborted'));
    };
    options.signal?.addEventListener('abort', onAbort);
    armIdle();
    xhr.send(form);
  });
}
