import { Readable } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/utils';
import { NotFoundError, uploadBytes, ValidationError, type ObjectStore } from '@baret/platform';

/**
 * A tus `DataStore` written against the ObjectStore port, so resumable uploads work on the
 * embedded folder and on MinIO / S3 alike. Layout of upload `<id>`:
 *
 *   tus/<id>/info.json            { id, size, metadata, owner, creation_date }
 *   tus/<id>/chunks/<offset>      the bytes of one PATCH, offset zero-padded so keys sort by it
 *   tus/<id>/file                 the whole video, assembled by streaming once the last byte came
 *   tus-receipts/<id>.json        { job_id, owner, at }: the upload became this job (idempotent retries)
 *
 * Each object appears whole or not at all (the port's promise), so the offset is always the end
 * of the last stored chunk and a crash never leaves a half-counted byte. Nothing is held whole in
 * memory: chunks stream in, the assembly streams chunk after chunk.
 */
export const TUS_PREFIX = 'tus/';
const RECEIPTS_PREFIX = 'tus-receipts/';
/** Metadata key the gateway uses to hand the owner to `create`; never stored as metadata. */
const OWNER_KEY = 'baret-owner';
const OFFSET_DIGITS = 15;

/** Upload ids are the tus server's (32 hex characters); anything else never reaches the store. */
export const UPLOAD_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

interface UploadInfo {
  id: string;
  size: number;
  metadata: Record<string, string | null>;
  owner: string;
  creation_date: string;
}

interface Receipt {
  job_id: string;
  owner: string;
  at: string;
}

export interface FinishedUpload {
  id: string;
  size: number;
  filename: string;
  filetype: string;
  owner: string;
  /** The assembled video, streamed. */
  open(): Promise<Readable>;
}

/** The two log levels the store uses (a pino logger fits). */
export interface UploadLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface ObjectStoreDataStoreOptions {
  objects: ObjectStore;
  /** Uploads older than this are deleted by `deleteExpired`; 0 keeps them forever. */
  expiryMs: number;
  now?: () => Date;
  log?: UploadLog;
}

const infoKey = (id: string) => `${TUS_PREFIX}${id}/info.json`;
const fileKey = (id: string) => `${TUS_PREFIX}${id}/file`;
const chunksPrefix = (id: string) => `${TUS_PREFIX}${id}/chunks/`;
const chunkKey = (id: string, offset: number) => `${chunksPrefix(id)}${String(offset).padStart(OFFSET_DIGITS, '0')}`;
const receiptKey = (id: string) => `${RECEIPTS_PREFIX}${id}.json`;

async function readJson<T>(objects: ObjectStore, key: string): Promise<T | null> {
  let stream: Readable;
  try {
    stream = await objects.get(key);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as T;
}

async function* counted(source: Readable, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    onBytes(buf.length);
    yield buf;
  }
}

export class ObjectStoreDataStore extends DataStore {
  private readonly objects: ObjectStore;
  private readonly expiryMs: number;
  private readonly now: () => Date;
  private readonly log: UploadLog | undefined;

  constructor(opts: ObjectStoreDataStoreOptions) {
    super();
    this.objects = opts.objects;
    this.expiryMs = opts.expiryMs;
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log;
    // No deferred length: every upload declares its size up front, so the size limit is a 413 at once.
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  /** The metadata of a new upload of `userId`: the client's, plus the owner, which `create` keeps aside. */
  withOwner(metadata: Record<string, string | null> | undefined, userId: string): Record<string, string | null> {
    return { ...metadata, [OWNER_KEY]: userId };
  }

  /** Who created the upload; null when it does not exist (or is no longer an upload). */
  async ownerOf(id: string): Promise<string | null> {
    if (!UPLOAD_ID_PATTERN.test(id)) return null;
    return (await readJson<UploadInfo>(this.objects, infoKey(id)))?.owner ?? null;
  }

  override async create(upload: Upload): Promise<Upload> {
    const { [OWNER_KEY]: owner, ...metadata } = upload.metadata ?? {};
    if (!owner) throw new Error('an upload needs an owner');
    if (upload.size === undefined) throw ERRORS.INVALID_LENGTH;
    upload.metadata = metadata;
    upload.creation_date = this.now().toISOString();
    const info: UploadInfo = { id: upload.id, size: upload.size, metadata, owner, creation_date: upload.creation_date };
    await this.objects.put(infoKey(upload.id), Buffer.from(JSON.stringify(info)), { contentType: 'application/json' });
    this.log?.info({ upload_id: upload.id, size: upload.size, user_id: owner }, 'resumable upload created');
    return upload;
  }

  private async info(id: string): Promise<UploadInfo> {
    const info = UPLOAD_ID_PATTERN.test(id) ? await readJson<UploadInfo>(this.objects, infoKey(id)) : null;
    if (!info) throw ERRORS.FILE_NOT_FOUND;
    return info;
  }

  /** Bytes stored so far: the end of the last chunk, or the whole size once assembled. */
  private async offsetOf(info: UploadInfo): Promise<number> {
    if (await this.objects.head(fileKey(info.id))) return info.size;
    const chunks = await this.objects.list(chunksPrefix(info.id));
    const last = chunks.at(-1);
    if (!last) return 0;
    const head = await this.objects.head(last);
    return Number(last.slice(chunksPrefix(info.id).length)) + (head?.size ?? 0);
  }

  override async getUpload(id: string): Promise<Upload> {
    const info = await this.info(id);
    return new Upload({ id, size: info.size, offset: await this.offsetOf(info), metadata: info.metadata, creation_date: info.creation_date });
  }

  /** Stores one PATCH body as its own object; assembles the file when it was the last one. */
  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const info = await this.info(id);
    const key = chunkKey(id, offset);
    let received = 0;
    await this.objects.put(
      key,
      Readable.from(counted(stream, (n) => {
        received += n;
        uploadBytes.inc({ kind: 'resumable' }, n);
      })),
      { contentType: 'application/octet-stream' },
    );
    if (received === 0) await this.objects.delete(key);
    const next = offset + received;
    this.log?.info({ upload_id: id, offset, bytes: received, upload_offset: next, size: info.size }, 'resumable upload chunk stored');
    if (next >= info.size) await this.assemble(info);
    return next;
  }

  private async assemble(info: UploadInfo): Promise<void> {
    const chunks = await this.objects.list(chunksPrefix(info.id));
    const objects = this.objects;
    async function* all(): AsyncGenerator<Buffer> {
      for (const key of chunks) for await (const c of await objects.get(key)) yield Buffer.from(c as Buffer);
    }
    const stored = await this.objects.put(fileKey(info.id), Readable.from(all()), {
      contentType: info.metadata.filetype || 'application/octet-stream',
      size: info.size,
    });
    if (stored.size !== info.size) {
      await this.objects.delete(fileKey(info.id));
      throw new Error(`assembled upload ${info.id} has ${stored.size} bytes, expected ${info.size}`);
    }
    for (const key of chunks) await this.objects.delete(key);
    this.log?.info({ upload_id: info.id, size: info.size, chunks: chunks.length }, 'resumable upload complete');
  }

  override async remove(id: string): Promise<void> {
    if (!UPLOAD_ID_PATTERN.test(id)) throw ERRORS.FILE_NOT_FOUND;
    for (const key of await this.objects.list(`${TUS_PREFIX}${id}/`)) await this.objects.delete(key);
  }

  override getExpiration(): number {
    return this.expiryMs;
  }

  /** Deletes uploads (partial or finished but never used) and receipts older than the expiry. */
  override async deleteExpired(): Promise<number> {
    if (this.expiryMs <= 0) return 0;
    const cutoff = this.now().getTime() - this.expiryMs;
    const ids = new Set((await this.objects.list(TUS_PREFIX)).map((k) => k.slice(TUS_PREFIX.length).split('/')[0]!));
    let removed = 0;
    for (const id of ids) {
      const info = await readJson<UploadInfo>(this.objects, infoKey(id)).catch(() => null);
      // An upload without its info object is debris of a crash between puts: judge it by its objects.
      const created = info ? Date.parse(info.creation_date) : await this.oldestObjectTime(`${TUS_PREFIX}${id}/`);
      if (created < cutoff) {
        await this.remove(id);
        removed++;
      }
    }
    for (const key of await this.objects.list(RECEIPTS_PREFIX)) {
      const receipt = await readJson<Receipt>(this.objects, key).catch(() => null);
      if (!receipt || Date.parse(receipt.at) < cutoff) await this.objects.delete(key);
    }
    if (removed > 0) this.log?.info({ removed }, 'expired resumable uploads deleted');
    return removed;
  }

  private async oldestObjectTime(prefix: string): Promise<number> {
    let oldest = Number.POSITIVE_INFINITY;
    for (const key of await this.objects.list(prefix)) {
      const head = await this.objects.head(key);
      if (head) oldest = Math.min(oldest, head.lastModified.getTime());
    }
    return oldest;
  }

  /**
   * A finished upload of `userId`, ready to become a job. Another user's upload, an unknown id
   * and an expired one are all "not found"; an unfinished one is a 400.
   */
  async finished(id: string, userId: string): Promise<FinishedUpload> {
    const info = UPLOAD_ID_PATTERN.test(id) ? await readJson<UploadInfo>(this.objects, infoKey(id)) : null;
    if (!info || info.owner !== userId) throw new NotFoundError('This upload does not exist or has expired. Please upload the video again.');
    const file = await this.objects.head(fileKey(id));
    if (!file) throw new ValidationError('This upload is not finished yet: send the rest of the video first.');
    return {
      id,
      size: file.size,
      filename: info.metadata.filename || 'video',
      filetype: info.metadata.filetype || 'application/octet-stream',
      owner: info.owner,
      open: () => this.objects.get(fileKey(id)),
    };
  }

  /** The job an upload of `userId` already became, when a retry asks again. */
  async receiptOf(id: string, userId: string): Promise<string | null> {
    if (!UPLOAD_ID_PATTERN.test(id)) return null;
    const receipt = await readJson<Receipt>(this.objects, receiptKey(id));
    return receipt && receipt.owner === userId ? receipt.job_id : null;
  }

  /** The upload became `jobId`: its objects go, a small receipt stays until the expiry. */
  async consumed(id: string, userId: string, jobId: string): Promise<void> {
    const receipt: Receipt = { job_id: jobId, owner: userId, at: this.now().toISOString() };
    await this.objects.put(receiptKey(id), Buffer.from(JSON.stringify(receipt)), { contentType: 'application/json' });
    await this.remove(id);
  }
}
