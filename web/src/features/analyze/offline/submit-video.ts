import { startAnalysis, type AnalysisParams, type StartedJob } from '@/features/analyze/api/start-analysis';
import { startAnalysisFromUpload, uploadResumable } from '@/features/analyze/offline/resumable-upload';
import { enqueueUpload } from '@/features/analyze/offline/enqueue';
import type { QueuedUpload } from '@/features/analyze/offline/queue-db';
import { requestBackgroundSync } from '@/features/analyze/offline/background-sync';
import { ApiError } from '@/lib/api-client';
import { computeProgress, type UploadProgress } from '@/lib/upload';

/** Videos up to this size go in one multipart request; larger ones resumably, in chunks. */
export const ONE_REQUEST_MAX_BYTES = 4 * 1024 * 1024;

export type SubmitOutcome = { kind: 'started'; job: StartedJob } | { kind: 'queued'; item: QueuedUpload };

const offline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

/**
 * Starts an analysis the way the connection allows: at once when online (a resumable upload for
 * large videos), or into the upload queue when the device is offline or the network fails
 * part-way (a resumable upload then continues from where it stopped). Server refusals (4xx) are
 * thrown as ApiError, as before; a queue that cannot take the video throws QueueError.
 */
export async function submitVideo(
  file: File,
  params: AnalysisParams,
  userId: string,
  onProgress?: (progress: UploadProgress) => void,
): Promise<SubmitOutcome> {
  const queue = async (extra: { uploadUrl?: string | null; bytesSent?: number } = {}): Promise<SubmitOutcome> => {
    const item = await enqueueUpload(file, params, userId, extra);
    void requestBackgroundSync();
    return { kind: 'queued', item };
  };
  if (offline()) return queue();

  if (file.size <= ONE_REQUEST_MAX_BYTES) {
    try {
      return { kind: 'started', job: await startAnalysis(file, params, onProgress) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 0) return queue();
      throw error;
    }
  }

  const startedAt = Date.now();
  let uploadUrl: string | null = null;
  let sent = 0;
  try {
    const uploadId = await uploadResumable(file, file.name, {
      uploadUrl: null,
      onUrl: (url) => (uploadUrl = url),
      onProgress: (bytes, total) => {
        sent = bytes;
        onProgress?.(computeProgress(bytes, total, Date.now() - startedAt));
      },
    });
    return { kind: 'started', job: await startAnalysisFromUpload(uploadId, params) };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 0 || error.status >= 500)) return queue({ uploadUrl, bytesSent: sent });
    throw error;
  }
}
