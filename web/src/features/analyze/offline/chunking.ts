/** Chunking of resumable uploads, shared by the page's tus-js-client and the service worker's fetch client. */

/**
 * Chunk size for a file: about four chunks for small videos (so an interruption loses little),
 * at most 8 MiB each for large ones (few requests), never under 64 KiB.
 */
export function chunkSizeFor(size: number): number {
  return Math.min(8 * 1024 * 1024, Math.max(64 * 1024, Math.ceil(size / 4)));
}

/** Delays between automatic retries of a request that got no answer or a 5xx (then the upload waits in the queue). */
export const RETRY_DELAYS_MS = [0, 1000, 3000, 5000];
