import type { AnalysisParams } from '@/features/analyze/api/start-analysis';
import { putQueued, putSession, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { apiUrl, getAuthToken, languageHeaders } from '@/lib/api-client';

/** Room kept free beside the video, so the browser and the app can still work. */
export const STORAGE_HEADROOM_BYTES = 20 * 1024 * 1024;

export type QueueErrorReason = 'storageFull' | 'storageUnavailable';

export class QueueError extends Error {
  readonly reason: QueueErrorReason;
  readonly needed: number;
  readonly available: number | null;
  constructor(reason: QueueErrorReason, needed: number, available: number | null) {
    super(reason);
    this.name = 'QueueError';
    this.reason = reason;
    this.needed = needed;
    this.available = available;
  }
}

/** Whether `size` bytes fit, from the browser's own estimate; null when it gives none. */
export function fitsInStorage(size: number, estimate: { quota?: number; usage?: number } | null): { fits: boolean; available: number | null } {
  if (!estimate || typeof estimate.quota !== 'number') return { fits: true, available: null };
  const available = Math.max(0, estimate.quota - (estimate.usage ?? 0));
  return { fits: available >= size + STORAGE_HEADROOM_BYTES, available };
}

const newId = () => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`);

/**
 * Keeps a video and its settings on the device until it can be uploaded. Asks the browser to keep
 * the storage (persist) and checks the space first: a video that does not fit is refused with a
 * QueueError and nothing is stored.
 */
export async function enqueueUpload(
  file: File,
  params: AnalysisParams,
  userId: string,
  extra: Partial<Pick<QueuedUpload, 'uploadUrl' | 'bytesSent'>> = {},
): Promise<QueuedUpload> {
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  await storage?.persist?.().catch(() => false);
  const estimate = storage?.estimate ? await storage.estimate().catch(() => null) : null;
  const { fits, available } = fitsInStorage(file.size, estimate);
  if (!fits) throw new QueueError('storageFull', file.size, available);
  const item: QueuedUpload = {
    id: newId(),
    userId,
    name: file.name,
    type: file.type || 'application/octet-stream',
    size: file.size,
    params,
    createdAt: new Date().toISOString(),
    state: 'waiting',
    bytesSent: extra.bytesSent ?? 0,
    uploadUrl: extra.uploadUrl ?? null,
    error: null,
  };
  try {
    await putQueued(item, file);
    // The service worker uploads with this session when no page is open (Background Sync).
    const token = getAuthToken();
    if (token) {
      await putSession({ userId, token, apiBase: apiUrl(''), language: languageHeaders()['Accept-Language'] ?? null, updatedAt: item.createdAt }).catch(() => undefined);
    }
  } catch (error) {
    // The transaction was rolled back (quota exceeded, storage blocked): nothing half-stored.
    const name = error instanceof DOMException ? error.name : '';
    throw new QueueError(name === 'QuotaExceededError' ? 'storageFull' : 'storageUnavailable', file.size, available);
  }
  return item;
}
