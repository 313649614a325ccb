import type { StartedJob } from '@/features/analyze/api/start-analysis';
import { startAnalysisFromUpload, uploadResumable } from '@/features/analyze/offline/resumable-upload';
import { listQueued, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { newOwner, replayItem, withQueueLock, type ReplaySteps } from '@/features/analyze/offline/replay-core';

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
/** Called when a queued video became a job (the server answered 202 with its id), here or in the service worker. */
export function onQueuedJobCreated(listener: (job: StartedJob, item: QueuedUpload) => void): () => void {
  jobListeners.add(listener);
  return () => jobListeners.delete(listener);
}
/** Tells this page's listeners of a job the queue created (the service worker's come by message). */
export function notifyQueuedJobCreated(job: StartedJob, item: QueuedUpload): void {
  jobListeners.forEach((l) => l(job, item));
}

const online = () => typeof navigator === 'undefined' || navigator.onLine !== false;

/** This page's name in the items' claims (see claimQueued). */
const owner = newOwner('page');

/**
 * Uploads the user's waiting videos one after another. Only one replay runs at a time, across
 * tabs and the service worker too (Web Locks where the browser has them, and a claim on each
 * item in IndexedDB). An item leaves the queue only once the server confirmed its job; a network
 * failure leaves it waiting for the next chance (online event, Background Sync, app start), with
 * the resumable upload's address so it continues where it was.
 */
let running: Promise<void> | null = null;
export function replayQueue(userId: string): Promise<void> {
  running ??= withQueueLock(() => replay(userId)).finally(() => {
    running = null;
  });
  return running;
}

const pageSteps: ReplaySteps = {
  upload: (item, file, hooks) =>
    new Promise<string>((resolve, reject) => {
      const controller = new AbortController();
      // The item was removed or taken meanwhile: stop sending it.
      const lost = (error: unknown) => {
        controller.abort();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      setLive(item.id, item.bytesSent);
      uploadResumable(file, item.name, {
        uploadUrl: item.uploadUrl,
        signal: controller.signal,
        onUrl: (url) => void hooks.onUrl(url).catch(lost),
        onProgress: (sent) => {
          setLive(item.id, sent);
          void hooks.onProgress(sent).catch(lost);
        },
      }).then(resolve, reject);
    }),
  startAnalysis: startAnalysisFromUpload,
};

async function replay(userId: string): Promise<void> {
  for (const item of await listQueued(userId)) {
    if (item.state === 'failed') continue;
    if (!online()) return;
    try {
      if ((await replayItem(item, owner, pageSteps, notifyQueuedJobCreated)) === 'stop') return;
    } finally {
      setLive(item.id, null);
    }
  }
}
