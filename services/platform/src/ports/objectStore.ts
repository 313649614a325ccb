import type { Readable } from 'node:stream';

/**
 * ObjectStore port: streamed blobs by key. Bodies are streams so that a large video never sits
 * whole in memory.
 *
 * Adapters: a folder (embedded), MinIO / any S3 (distributed).
 */
export interface ObjectInfo {
  key: string;
  size: number;
  contentType: string;
  lastModified: Date;
}

export interface PutOptions {
  contentType?: string;
  /** Known size in bytes, when the caller has it (S3 uses it to avoid buffering). */
  size?: number;
}

export interface ObjectStore {
  /** Stream `body` into `key`; the object appears whole or not at all. */
  put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<ObjectInfo>;
  /** Throws NotFoundError when the key does not exist. */
  get(key: string): Promise<Readable>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Keys under a prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,511}$/;

/** Keys are relative paths of safe characters, never climbing out with "..". */
export function assertValidKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}
