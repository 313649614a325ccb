import type { StartedJob } from '@/features/analyze/api/start-analysis';
import { startAnalysisFromUpload, uploadResumable } from '@/features/analyze/offline/resumable-upload';
import { getQueuedFile, listQueued, removeQueued, updateQueued, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { ApiError } from '@/lib/api-client';

/** Bytes sent of the item uploading now (live, not stored on every progress event). */
const live = new Map<string, number>();
const liveListeners = new Set<() => void>();
export const liveProgress = (id: string): number | undefined => live.get(id);
export function subscribeLiveProgress(listener: () => void): () => void {
  liveListeners.add(listener);
  return () => liveListeners.delete(listener);
}
function setLive(id: string, sent: number | null): void {
  if (sent === null) live.delete(id);
  else live.set(id, sent);
  liveListeners.forEach((l) => l());
}

const jobListeners = new Set<(job: StartedJob, item: QueuedUpload) => void>();
/** Called when a queued video became a job (the server answered 202 with its id). */
export function onQueuedJobCreated(listener: (job: StartedJob, item: QueuedUpload) => void): () => void {
  jobListeners.add(listener);
  return () => jobListeners.delete(listener);
}

const online = () => typeof navigator === 'undefined' || navigator.onLine !== false;

/**
 * Uploads the user's waiting videos one after another. Only one replay runs at a time, across
 * tabs too (Web Locks where the browser has them). An item leaves the queue only once the server
 * confirmed its job; a network failure leaves it waiting for the next chance (online event,
 * Background Sync, app start), with the resumable upload's address so it continues where it was.
 */
let running: Promise<void> | null = null;
export function replayQueue(userId: string): Promise<void> {
  running ??= withLock(() => replay(userId)).finally(() => {
    running = null;
  });
  return running;
}

async function withLock(fn: () => Promise<void>): Promise<void> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (locks?.request) {
    await locks.request('baret-upload-queue', fn);
    return;
  }
  await fn();
}

async function replay(userId: string): Promise<void> {
  for (const item of await listQueued(userId)) {
    if (item.state === 'failed') continue;
    if (!online()) return;
    const file = await getQueuedFile(item.id);
    if (!file) {
      await removeQueued(item.id);
      continue;
    }
    if (!(await uploadOne(item, file))) return;
  }
}

/** One item; false when the network is gone (stop, try again later). */
async function uploadOne(item: QueuedUpload, file: Blob): Promise<boolean> {
  await updateQueued(item.id, { state: 'uploading', error: null });
  setLive(item.id, item.bytesSent);
  let uploadUrl = item.uploadUrl;
  try {
    const uploadId = await uploadResumable(file, item.name, {
      uploadUrl,
      onUrl: (url) => {
        uploadUrl = url;
        void updateQueued(item.id, { uploadUrl: url });
      },
      onProgress: (sent) => setLive(item.id, sent),
    });
    await updateQueued(item.id, { bytesSent: item.size });
    const job = await startAnalysisFromUpload(uploadId, item.params);
    await removeQueued(item.id);
    jobListeners.forEach((l) => l(job, item));
    return true;
  } catch (error) {
    const status = error instanceof ApiError ? error.status : 0;
    const sent = live.get(item.id) ?? item.bytesSent;
    if (status === 0 || status >= 500 || status === 429) {
      await updateQueued(item.id, { state: 'waiting', bytesSent: sent, uploadUrl });
      return false;
    }
    if (status === 401) {
      await updateQueued(item.id, { state: 'waiting', bytesSent: sent, uploadUrl, error: { key: 'offline.queue.loginNeeded' } });
      return false;
    }
    if (status === 404) {
      // The server no longer has the upload (expired or removed): it starts again next time.
      await updateQueued(item.id, { state: 'waiting', bytesSent: 0, uploadUrl: null });
      return true;
    }
    const detail = error instanceof ApiError ? error.detail : null;
    await updateQueued(item.id, { state: 'failed', uploadUrl: null, bytesSent: 0, error: detail ? { text: detail } : { key: 'errors.startFailed' } });
    return true;
  } finally {
    setLive(item.id, null);
  }
}
