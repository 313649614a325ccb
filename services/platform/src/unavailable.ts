/**
 * Whether an error means "a dependency is down or restarting" (an engine, another service), as
 * opposed to a bug. Such a failure is answered 503 `service_unavailable` with `Retry-After` (never
 * 500), and a background task that meets it waits and starts again.
 */

/** Seconds a client is told to wait (Retry-After) when a dependency is down. */
export const RETRY_AFTER_SECONDS = 1;

/** Socket and DNS failures: the other end is not there (yet). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** PostgreSQL SQLSTATEs of a server shutting down, starting, or a connection lost. */
const PG_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);

/** The MongoDB driver's errors of an unreachable or lost server. */
const MONGO_NAMES = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoPoolClearedError']);

/** kafkajs' errors of an unreachable broker or cluster. */
const KAFKA_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
]);

/** S3 error codes of a server that is up but not serving. */
const S3_CODES = new Set(['ServiceUnavailable', 'SlowDown', 'XMinioServerNotInitialized', 'XMinioStorageFull', 'RequestTimeout']);

/** pg's own messages for a connection that went away or never came. */
const PG_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|the database system is (starting up|shutting down|in recovery)/i;

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const e = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown; unavailable?: unknown };
  if (e.unavailable === true) return true;
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK_CODES.has(code) || PG_CODES.has(code) || S3_CODES.has(code)) return true;
  if (MONGO_NAMES.has(name) || KAFKA_NAMES.has(name)) return true;
  if (name === 'TimeoutError') return true;
  if (typeof e.message === 'string' && PG_MESSAGES.test(e.message)) return true;
  const inner = [e.cause, e.originalError, ...(Array.isArray(e.errors) ? e.errors : [])];
  return inner.some((i) => isUnavailable(i, depth + 1));
}

/** Waits `ms`, or less when `signal` aborts. */
export const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Exponential backoff with jitter: half of min(maxMs, baseMs·2^attempt) plus a random part up to
 * the other half, so processes that lost one engine together do not come back in step.
 */
export const backoffMs = (attempt: number, baseMs = 250, maxMs = 15_000): number => {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(cap / 2 + (Math.random() * cap) / 2);
};

/** An error as one short log field (no stack): what a dependency outage is logged with, again and again. */
export const briefError = (error: unknown): Record<string, unknown> => {
  const e = error as { name?: unknown; message?: unknown; code?: unknown };
  return { type: typeof e?.name === 'string' ? e.name : typeof error, message: typeof e?.message === 'string' ? e.message.slice(0, 300) : String(error).slice(0, 300), ...(e?.code !== undefined ? { code: String(e.code) } : {}) };
};
