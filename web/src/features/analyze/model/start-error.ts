import { ApiError } from '@/lib/api-client';

/** What the analyze form shows when a start fails: a message key, or a text from the server. */
export interface StartError {
  key?: string;
  text?: string;
}

/**
 * The message for a failed start other than the quota 403: a file the server cannot read as a
 * video (415) or one over the upload limit (413) say so; anything else is the generic failure.
 */
export function startErrorFor(error: unknown): StartError {
  if (error instanceof ApiError && error.status === 415) return { key: 'errors.notAVideo' };
  if (error instanceof ApiError && error.status === 413) return { key: 'errors.videoTooLarge' };
  return { key: 'errors.startFailed' };
}
