import { Upload, type HttpRequest, type HttpResponse } from 'tus-js-client';

import { chunkSizeFor, RETRY_DELAYS_MS } from '@/features/analyze/offline/chunking';
import type { AnalysisParams, StartedJob } from '@/features/analyze/api/start-analysis';
import { ApiError, apiUrl, authHeaders, toApiError } from '@/lib/api-client';

export { chunkSizeFor, RETRY_DELAYS_MS };

export interface ResumableOptions {
  /** Continue this upload instead of creating a new one. */
  uploadUrl: string | null;
  onUrl?: (url: string) => void;
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * Uploads `file` with the tus protocol to /uploads and resolves with the upload's id. A
 * connection cut part-way is retried from the offset the server has, not from the start.
 */
export function uploadResumable(file: Blob, name: string, options: ResumableOptions): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const upload = new Upload(file, {
      endpoint: apiUrl('/uploads'),
      uploadUrl: options.uploadUrl ?? undefined,
      chunkSize: chunkSizeFor(file.size),
      retryDelays: RETRY_DELAYS_MS,
      // The queue in IndexedDB keeps the upload address; no fingerprints in localStorage.
      storeFingerprintForResuming: false,
      metadata: { filename: name, filetype: file.type || 'application/octet-stream' },
      onBeforeRequest: (req: HttpRequest) => {
        for (const [key, value] of Object.entries(authHeaders())) req.setHeader(key, value);
      },
      onUploadUrlAvailable: () => {
        if (upload.url) options.onUrl?.(upload.url);
      },
      onProgress: (sent, total) => options.onProgress?.(sent, total),
      onSuccess: () => {
        const id = upload.url?.split('/').pop();
        if (id) resolve(id);
        else reject(new ApiError(0, null, null, 'Upload finished without an address'));
      },
      onError: (error) => {
        const res = (error as { originalResponse?: HttpResponse | null }).originalResponse;
        if (!res) {
          reject(new ApiError(0, null, null, error.message));
          return;
        }
        // A resumed upload the server no longer has (expired, removed): start again next time.
        let detail: string | null = null;
        try {
          const body: unknown = JSON.parse(res.getBody());
          detail = typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string' ? body.detail : null;
        } catch {
          detail = null;
        }
        reject(new ApiError(res.getStatus(), detail));
      },
    });
    options.signal?.addEventListener('abort', () => void upload.abort(), { once: true });
    upload.start();
  });
}

/** POST /analyze naming a finished resumable upload instead of sending the file again. */
export async function startAnalysisFromUpload(uploadId: string, params: AnalysisParams): Promise<StartedJob> {
  const form = new FormData();
  form.append('payload', JSON.stringify({ ...params, upload_id: uploadId }));
  let response: Response;
  try {
    response = await fetch(apiUrl('/analyze'), { method: 'POST', headers: { Accept: 'application/json', ...authHeaders() }, body: form });
  } catch (error) {
    throw new ApiError(0, null, null, error instanceof Error ? error.message : 'Network error');
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) throw toApiError(response.status, body);
  return body as StartedJob;
}
