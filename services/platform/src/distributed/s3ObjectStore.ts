import { Readable } from 'node:stream';
import * as Minio from 'minio';
import { NotFoundError } from '../errors.js';
import { assertValidKey, type ObjectInfo, type ObjectStore, type PutOptions } from '../ports/objectStore.js';

export interface S3Options {
  /** The S3 endpoint as a URL, e.g. http://127.0.0.1:9000 or https://s3.eu-central-1.amazonaws.com */
  endPoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
  /** Keys of this store live under this prefix (each service its own). */
  prefix?: string;
}

/** Parts of a streamed upload: the client holds one part in memory at a time. */
const PART_SIZE = 8 * 1024 * 1024;

/**
 * The stream itself, or an empty buffer when it ends without a byte. Waits for the first chunk
 * only; what was read is replayed in front of the rest, and an error of the body still reaches
 * the stream returned.
 */
async function emptyAsBuffer(body: Readable): Promise<Readable | Buffer> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await chunks.next();
  if (first.done) return Buffer.alloc(0);
  return Readable.from(
    (async function* () {
      try {
        yield first.value;
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
      } finally {
        await chunks.return?.(); // the upload gave up: the body is let go too
      }
    })(),
  );
}

const isMissing = (e: unknown): boolean => {
  const code = (e as { code?: string }).code;
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'NoSuchObject';
};

/**
 * The ObjectStore port on S3 (MinIO or any S3) with the `minio` client: a body is streamed up in
 * 8 MiB multipart parts (a 1 GiB video never sits in memory), and S3 makes an object appear whole
 * or not at all; the bucket is created at start.
 */
export class S3ObjectStore implements ObjectStore {
  private constructor(
    private readonly client: Minio.Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  static async connect(opts: S3Options): Promise<S3ObjectStore> {
    const url = new URL(opts.endPoint);
    const useSSL = url.protocol === 'https:';
    const client = new Minio.Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: opts.accessKey,
      secretKey: opts.secretKey,
      region: opts.region ?? 'us-east-1',
      partSize: PART_SIZE,
      pathStyle: true,
    });
    if (!(await client.bucketExists(opts.bucket))) {
      await client.makeBucket(opts.bucket, opts.region ?? 'us-east-1').catch(async (e: unknown) => {
        // Another service created it in the meantime.
        if (!(await client.bucketExists(opts.bucket))) throw e;
      });
    }
    const prefix = opts.prefix ? `${opts.prefix.replace(/\/+$/, '')}/` : '';
    return new S3ObjectStore(client, opts.bucket, prefix);
  }

  private name(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions = {}): Promise<ObjectInfo> {
    const name = this.name(key);
    const contentType = options.contentType ?? 'application/octet-stream';
    // A stream of unknown length goes up as a multipart upload, and S3 refuses to complete one
    // without parts ("You must specify at least one part"): an empty stream is an empty object.
    if (!Buffer.isBuffer(body) && options.size === undefined) body = await emptyAsBuffer(body);
    const size = Buffer.isBuffer(body) ? body.length : options.size;
    const upload = this.client.putObject(this.bucket, name, body, size, { 'Content-Type': contentType });
    if (Buffer.isBuffer(body)) await upload;
    else {
      // The client does not notice a body that fails part-way (it waits for more): race the upload
      // with the body's error, then drop the unfinished multipart upload so nothing is left behind.
      upload.catch(() => undefined);
      const failed = new Promise<never>((_resolve, reject) => body.once('error', reject));
      failed.catch(() => undefined);
      try {
        await Promise.race([upload, failed]);
      } catch (e) {
        await this.client.removeIncompleteUpload(this.bucket, name).catch(() => undefined);
        throw e;
      }
    }
    const info = await this.head(key);
    if (!info) throw new Error(`object ${key} missing right after it was stored`);
    return info;
  }

  async get(key: string): Promise<Readable> {
    try {
      return await this.client.getObject(this.bucket, this.name(key));
    } catch (e) {
      if (isMissing(e)) throw new NotFoundError(`Object ${key} does not exist.`);
      throw e;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const stat = await this.client.statObject(this.bucket, this.name(key));
      const meta = stat.metaData as Record<string, string>;
      return { key, size: stat.size, contentType: meta['content-type'] ?? 'application/octet-stream', lastModified: stat.lastModified };
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.removeObject(this.bucket, this.name(key));
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const stream = this.client.listObjectsV2(this.bucket, this.prefix + prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) keys.push(item.name.slice(this.prefix.length));
    }
    return keys.sort();
  }

  async ping(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`bucket ${this.bucket} does not exist`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
