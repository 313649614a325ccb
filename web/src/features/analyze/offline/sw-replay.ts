/**
 * The service worker's own replay of the upload queue (on Background Sync, with no page needed):
 * the fetch tus client, the session the app mirrored into IndexedDB, and the same per-item rules
 * as the page (replay-core). No window, React or api-client here.
 */
import type { AnalysisParams, StartedJob } from '@/features/analyze/api/start-analysis';
import { chunkSizeFor, RETRY_DELAYS_MS } from '@/features/analyze/offline/chunking';
import { getQueued, getSession, listAllQueued, type QueueSession, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { newOwner, replayItem, type ReplaySteps } from '@/features/analyze/offline/replay-core';
import { tusUpload, uploadIdOf, UploadHttpError } from '@/features/analyze/offline/tus-fetch';

export interface SwReplayOptions {
  /** Where the API is when the session does not say (the service worker's origin). */
  defaultApiBase: string;
  onJob(job: StartedJob, item: QueuedUpload): void;
  fetch?: typeof fetch;
  retryDelays?: number[];
  /** No page of the app is open: claims held by pages are left over from closed pages. */
  noPageOpen?: boolean;
}

export interface SwReplayResult {
  done: number;
  /** Items left waiting because the network failed: the sync should be tried again later. */
  networkFailed: boolean;
}

const headersOf = (session: QueueSession): Record<string, string> => ({
  Authorization: `Bearer ${session.token}`,
  ...(session.language ? { 'Accept-Language': session.language } : {}),
});

async function postAnalyze(apiBase: string, session: QueueSession, uploadId: string, params: AnalysisParams, doFetch: typeof fetch): Promise<StartedJob> {
  const form = new FormData();
  form.append('payload', JSON.stringify({ ...params, upload_id: uploadId }));
  let response: Response;
  try {
    response = await doFetch(`${apiBase}/analyze`, { method: 'POST', headers: { Accept: 'application/json', ...headersOf(session) }, body: form });
  } catch (error) {
    throw new UploadHttpError(0, null, error instanceof Error ? error.message : 'Network error');
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (response.status !== 202 && !response.ok) {
    const detail = typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string' ? body.detail : null;
    throw new UploadHttpError(response.status, detail);
  }
  return body as StartedJob;
}

const owner = newOwner('sw');

/**
 * Uploads every waiting video whose user has a session on this device, one after another.
 * Items of a user without a session (logged out) wait for the next login.
 */
export async function replayFromServiceWorker(options: SwReplayOptions): Promise<SwReplayResult> {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const result: SwReplayResult = { done: 0, networkFailed: false };
  const stoppedUsers = new Set<string>();
  for (const item of await listAllQueued()) {
    if (item.state === 'failed' || stoppedUsers.has(item.userId)) continue;
    const session = await getSession(item.userId);
    if (!session) continue;
    const apiBase = (session.apiBase || options.defaultApiBase).replace(/\/+$/, '');
    const steps: ReplaySteps = {
      upload: async (queued, file, hooks) => {
        const url = await tusUpload(file, {
          endpoint: `${apiBase}/uploads`,
          uploadUrl: queued.uploadUrl,
          // Read again before each request: a login in the app meanwhile brings a fresh token.
          headers: async () => headersOf((await getSession(queued.userId)) ?? session),
          metadata: { filename: queued.name, filetype: queued.type || 'application/octet-stream' },
          chunkSize: chunkSizeFor(file.size),
          retryDelays: options.retryDelays ?? RETRY_DELAYS_MS,
          onUrl: hooks.onUrl,
          onProgress: (sent) => hooks.onProgress(sent),
          fetch: doFetch,
        });
        return uploadIdOf(url);
      },
      startAnalysis: async (uploadId, params) => postAnalyze(apiBase, (await getSession(item.userId)) ?? session, uploadId, params, doFetch),
    };
    // With no page open, a page's claim is left over from a page closed mid-upload: take it over.
    const pageGone = options.noPageOpen ? (claimer: string) => claimer.startsWith('page-') : undefined;
    const outcome = await replayItem(
      item,
      owner,
      steps,
      (job, queued) => {
        result.done += 1;
        options.onJob(job, queued);
      },
      pageGone,
    );
    if (outcome === 'stop') {
      stoppedUsers.add(item.userId);
      const after = await getQueued(item.id);
      if (after?.state === 'waiting') result.networkFailed = true;
    }
  }
  return result;
}
