/**
 * Replaying one queued video, shared by the page (tus-js-client) and the service worker (the
 * fetch tus client): claim the item in IndexedDB so exactly one uploader has it, upload, start
 * the analysis, and only then remove it. No window, React or api-client here (the service worker
 * bundles this).
 */
import type { AnalysisParams, StartedJob } from '@/features/analyze/api/start-analysis';
import { QUEUE_LOCK } from '@/features/analyze/offline/constants';
import { claimQueued, getQueuedFile, releaseClaim, removeQueued, renewClaim, type QueuedUpload } from '@/features/analyze/offline/queue-db';

export interface UploadHooks {
  /** The server created the upload at `url`. */
  onUrl(url: string): Promise<void>;
  /** The server has `sent` bytes. Rejects with ClaimLostError when the item was taken or removed meanwhile. */
  onProgress(sent: number): Promise<void>;
}

export interface ReplaySteps {
  /** Uploads the file (continuing `item.uploadUrl` when set) and resolves with the upload's id. */
  upload(item: QueuedUpload, file: Blob, hooks: UploadHooks): Promise<string>;
  /** POST /analyze with `payload.upload_id`; resolves once the server accepted the job (202). */
  startAnalysis(uploadId: string, params: AnalysisParams): Promise<StartedJob>;
}

/** done: became a job; next: go on with the next item; stop: the network or the session is gone; skipped: another uploader has it. */
export type ItemOutcome = 'done' | 'next' | 'stop' | 'skipped';

export class ClaimLostError extends Error {
  constructor() {
    super('The queued item was taken or removed');
    this.name = 'ClaimLostError';
  }
}

/** Progress is written to IndexedDB at most this often (and the claim renewed with it). */
const PROGRESS_WRITE_MS = 1000;

const statusOf = (error: unknown): number => {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : 0;
};
const detailOf = (error: unknown): string | null => {
  const detail = (error as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' && detail ? detail : null;
};

/** What a failure means for the item: its new fields and whether to go on with the next one. */
export function outcomeOf(error: unknown, sent: number, uploadUrl: string | null): { patch: Partial<QueuedUpload>; next: 'next' | 'stop' } {
  const status = statusOf(error);
  if (status === 0 || status >= 500 || status === 408 || status === 429) {
    return { patch: { state: 'waiting', bytesSent: sent, uploadUrl }, next: 'stop' };
  }
  if (status === 401) {
    return { patch: { state: 'loginNeeded', bytesSent: sent, uploadUrl, error: { key: 'offline.queue.loginNeeded' } }, next: 'stop' };
  }
  if (status === 404 || status === 410) {
    // The server no longer has the upload (expired or removed): it starts again next time.
    return { patch: { state: 'waiting', bytesSent: 0, uploadUrl: null }, next: 'next' };
  }
  const detail = detailOf(error);
  return { patch: { state: 'failed', uploadUrl: null, bytesSent: 0, error: detail ? { text: detail } : { key: 'errors.startFailed' } }, next: 'next' };
}

/** Replays one item as `owner`; `onJob` hears of the job the server created. */
export async function replayItem(
  item: QueuedUpload,
  owner: string,
  steps: ReplaySteps,
  onJob: (job: StartedJob, item: QueuedUpload) => void,
  isStaleOwner?: (owner: string) => boolean,
): Promise<ItemOutcome> {
  const claimed = await claimQueued(item.id, owner, Date.now(), isStaleOwner);
  if (!claimed) return 'skipped';
  const file = await getQueuedFile(item.id);
  if (!file) {
    await removeQueued(item.id);
    return 'next';
  }
  let uploadUrl = claimed.uploadUrl;
  let sent = claimed.bytesSent;
  let written = 0;
  const renew = async (patch: Partial<QueuedUpload>) => {
    if (!(await renewClaim(item.id, owner, patch))) throw new ClaimLostError();
  };
  try {
    await renew({ error: null });
    const uploadId = await steps.upload(claimed, file, {
      onUrl: async (url) => {
        uploadUrl = url;
        await renew({ uploadUrl: url });
      },
      onProgress: async (bytes) => {
        sent = bytes;
        if (Date.now() - written < PROGRESS_WRITE_MS && bytes < claimed.size) return;
        written = Date.now();
        await renew({ bytesSent: bytes });
      },
    });
    sent = claimed.size;
    await renew({ bytesSent: sent, uploadUrl });
    const job = await steps.startAnalysis(uploadId, claimed.params);
    // Only now, with the job confirmed, does the video leave the device.
    await removeQueued(item.id);
    onJob(job, claimed);
    return 'done';
  } catch (error) {
    if (error instanceof ClaimLostError) return 'next';
    const { patch, next } = outcomeOf(error, sent, uploadUrl);
    await releaseClaim(item.id, owner, patch);
    return next;
  }
}

/** An uploader's name in claims: unique per page or service worker instance. */
export function newOwner(kind: 'page' | 'sw'): string {
  const random = typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : Math.random().toString(16).slice(2);
  return `${kind}-${random}`;
}

/** Runs `fn` holding the queue's Web Lock (pages and the service worker share it) where the browser has one. */
export async function withQueueLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (locks?.request) return locks.request(QUEUE_LOCK, fn) as Promise<T>;
  return fn();
}
