import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@tus/server';
import { Upload } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsObjectStore, NotFoundError, S3ObjectStore, ValidationError, type ObjectInfo, type ObjectStore } from '@baret/platform';
import { minioBinary, startMinio, type RunningMinio } from '@baret/platform/testing';
import { ObjectStoreDataStore } from '../src/resumable/tusStore.js';

/** A second adapter, in memory, to show the data store relies on nothing but the port. */
class MemoryObjectStore implements ObjectStore {
  readonly data = new Map<string, { body: Buffer; info: ObjectInfo }>();
  async put(key: string, body: Readable | Buffer, options: { contentType?: string } = {}): Promise<ObjectInfo> {
    const parts: Buffer[] = [];
    if (Buffer.isBuffer(body)) parts.push(body);
    else for await (const c of body) parts.push(Buffer.from(c as Buffer));
    const all = Buffer.concat(parts);
    const info = { key, size: all.length, contentType: options.contentType ?? 'application/octet-stream', lastModified: new Date() };
    this.data.set(key, { body: all, info });
    return info;
  }
  async get(key: string): Promise<Readable> {
    const o = this.data.get(key);
    if (!o) throw new NotFoundError(`Object ${key} not found`);
    return Readable.from([o.body]);
  }
  async head(key: string): Promise<ObjectInfo | null> {
    return this.data.get(key)?.info ?? null;
  }
  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.data.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const HOUR = 3600_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts);
}

/** A request body that delivers `bytes` in small pieces. */
const body = (bytes: Buffer) => Readable.from([bytes.subarray(0, Math.floor(bytes.length / 3)), bytes.subarray(Math.floor(bytes.length / 3))]);

const adapters: Array<[string, () => Promise<{ objects: ObjectStore; dispose: () => Promise<void> }>]> = [
  [
    'folder',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'baret-tus-'));
      return { objects: await new FsObjectStore(dir).init(), dispose: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  ['memory', async () => ({ objects: new MemoryObjectStore(), dispose: async () => undefined })],
];

// The distributed run keeps uploads on S3: the same tests on a real MinIO, when it is installed.
let minio: RunningMinio | undefined;
let minioRuns = 0;
if (minioBinary() !== null) {
  adapters.push([
    'MinIO (S3)',
    async () => {
      if (!minio) throw new Error('MinIO did not start');
      const objects = await S3ObjectStore.connect({ endPoint: minio.endPoint, accessKey: minio.accessKey, secretKey: minio.secretKey, bucket: 'baret-tus', prefix: `run-${++minioRuns}` });
      return { objects, dispose: () => objects.close() };
    },
  ]);
}
beforeAll(async () => {
  if (minioBinary() !== null) minio = await startMinio();
}, 120_000);
afterAll(async () => {
  await minio?.stop();
});

describe.each(adapters)('tus data store over the object store port (%s)', (_name, open) => {
  async function setup() {
    const { objects, dispose } = await open();
    let now = new Date('2026-03-15T10:00:00.000Z');
    const logged: Array<Record<string, unknown>> = [];
    const store = new ObjectStoreDataStore({
      objects,
      expiryMs: 24 * HOUR,
      now: () => now,
      log: { info: (o) => void logged.push(o), warn: () => undefined },
    });
    const create = async (id: string, size: number, owner = 'user-1') =>
      store.create(new Upload({ id, size, offset: 0, metadata: store.withOwner({ filename: 'direk.mp4', filetype: 'video/mp4' }, owner) }));
    return { objects, store, create, logged, dispose, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
  }

  it('stores each PATCH as its own chunk object, resumes at the stored offset and assembles the file on the last byte', async () => {
    const { objects, store, create, logged, dispose } = await setup();
    try {
      const video = randomBytes(300_000);
      const created = await create('upload-0001', video.length);
      expect(created.creation_date).toBe('2026-03-15T10:00:00.000Z');
      expect(created.metadata).toEqual({ filename: 'direk.mp4', filetype: 'video/mp4' }); // the owner is kept aside
      expect((await store.getUpload('upload-0001')).offset).toBe(0);

      expect(await store.write(body(video.subarray(0, 100_000)), 'upload-0001', 0)).toBe(100_000);
      // The connection dropped part-way through the second PATCH: what arrived is kept.
      expect(await store.write(body(video.subarray(100_000, 170_000)), 'upload-0001', 100_000)).toBe(170_000);
      const resumed = await store.getUpload('upload-0001');
      expect(resumed.offset).toBe(170_000);
      expect(resumed.size).toBe(video.length);
      expect(await objects.list('tus/upload-0001/chunks/')).toEqual([
        'tus/upload-0001/chunks/000000000000000',
        'tus/upload-0001/chunks/000000000100000',
      ]);
      expect(await objects.head('tus/upload-0001/file')).toBeNull();

      expect(await store.write(body(video.subarray(170_000)), 'upload-0001', 170_000)).toBe(video.length);
      expect(await objects.list('tus/upload-0001/chunks/')).toEqual([]);
      expect((await store.getUpload('upload-0001')).offset).toBe(video.length);
      expect(await objects.head('tus/upload-0001/file')).toMatchObject({ size: video.length, contentType: 'video/mp4' });
      const finished = await store.finished('upload-0001', 'user-1');
      expect(finished).toMatchObject({ size: video.length, filename: 'direk.mp4', filetype: 'video/mp4' });
      expect(sha(await readAll(await finished.open()))).toBe(sha(video));

      // Every byte was received exactly once.
      const chunks = logged.filter((l) => l.bytes !== undefined).map((l) => [l.offset, l.bytes]);
      expect(chunks).toEqual([[0, 100_000], [100_000, 70_000], [170_000, 130_000]]);
    } finally {
      await dispose();
    }
  });

  it('an empty PATCH stores nothing; an unknown id is a tus 404', async () => {
    const { objects, store, create, dispose } = await setup();
    try {
      await create('upload-0002', 10);
      expect(await store.write(Readable.from([]), 'upload-0002', 0)).toBe(0);
      expect(await objects.list('tus/upload-0002/chunks/')).toEqual([]);
      await expect(store.getUpload('missing-01')).rejects.toMatchObject({ status_code: 404 });
      await expect(store.getUpload('../../etc')).rejects.toMatchObject({ status_code: 404 });
    } finally {
      await dispose();
    }
  });

  it('answers a PATCH without a body (Content-Length: 0) through the tus server with 204 and the offset unchanged', async () => {
    const { objects, store, advance, dispose } = await setup();
    advance(Date.now() - Date.parse('2026-03-15T10:00:00.000Z')); // the tus server judges expiry by the real clock
    const tus = new Server({
      path: '/uploads',
      datastore: store,
      relativeLocation: true,
      onUploadCreate: async (_req, upload) => ({ metadata: store.withOwner(upload.metadata, 'user-1') }),
    });
    const server = createServer((req, res) => void tus.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const TUS = { 'tus-resumable': '1.0.0' };
    const patch = (url: string, offset: number, bytes: Buffer) =>
      fetch(url, { method: 'PATCH', headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body: bytes });
    try {
      const created = await fetch(`${base}/uploads`, { method: 'POST', headers: { ...TUS, 'upload-length': '10' } });
      expect(created.status).toBe(201);
      const url = `${base}${created.headers.get('location')}`;
      const id = url.split('/').pop()!;

      for (const [offset, before] of [[0, null], [4, Buffer.from('abcd')]] as const) {
        if (before) expect((await patch(url, 0, before)).headers.get('upload-offset')).toBe('4');
        const empty = await patch(url, offset, Buffer.alloc(0));
        expect(empty.status, await empty.text()).toBe(204);
        expect(empty.headers.get('upload-offset')).toBe(String(offset));
        const head = await fetch(url, { method: 'HEAD', headers: TUS });
        expect(head.headers.get('upload-offset')).toBe(String(offset));
      }
      expect(await objects.list(`tus/${id}/chunks/`)).toEqual([`tus/${id}/chunks/000000000000000`]);
      const rest = await patch(url, 4, Buffer.from('efghij'));
      expect(rest.status).toBe(204);
      expect(rest.headers.get('upload-offset')).toBe('10');
      expect((await readAll(await (await store.finished(id, 'user-1')).open())).toString()).toBe('abcdefghij');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await dispose();
    }
  });

  it('only the owner may use an upload; an unfinished one cannot become a job yet', async () => {
    const { store, create, dispose } = await setup();
    try {
      await create('upload-0003', 10, 'alice');
      expect(await store.ownerOf('upload-0003')).toBe('alice');
      expect(await store.ownerOf('upload-none')).toBeNull();
      await expect(store.finished('upload-0003', 'bob')).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.finished('upload-0003', 'alice')).rejects.toBeInstanceOf(ValidationError);
      await store.write(body(Buffer.alloc(10, 1)), 'upload-0003', 0);
      await expect(store.finished('upload-0003', 'bob')).rejects.toBeInstanceOf(NotFoundError);
      expect((await store.finished('upload-0003', 'alice')).size).toBe(10);
      await expect(store.create(new Upload({ id: 'upload-0004', size: 5, offset: 0, metadata: {} }))).rejects.toThrow('owner');
    } finally {
      await dispose();
    }
  });

  it('a consumed upload leaves only a receipt for its owner; termination removes everything', async () => {
    const { objects, store, create, dispose } = await setup();
    try {
      await create('upload-0005', 4);
      await store.write(body(Buffer.from('abcd')), 'upload-0005', 0);
      await store.consumed('upload-0005', 'user-1', 'job-9');
      expect(await objects.list('tus/upload-0005/')).toEqual([]);
      expect(await store.receiptOf('upload-0005', 'user-1')).toBe('job-9');
      expect(await store.receiptOf('upload-0005', 'someone-else')).toBeNull();

      await create('upload-0006', 8);
      await store.write(body(Buffer.from('abcd')), 'upload-0006', 0);
      await store.remove('upload-0006');
      expect(await objects.list('tus/upload-0006/')).toEqual([]);
      await expect(store.getUpload('upload-0006')).rejects.toMatchObject({ status_code: 404 });
    } finally {
      await dispose();
    }
  });

  it('deletes uploads and receipts older than the expiry, keeps younger ones', async () => {
    const { objects, store, create, advance, dispose } = await setup();
    try {
      expect(store.getExpiration()).toBe(24 * HOUR);
      await create('old-partial', 100);
      await store.write(body(Buffer.alloc(40)), 'old-partial', 0);
      await create('old-unused', 4);
      await store.write(body(Buffer.alloc(4)), 'old-unused', 0);
      await create('old-consumed', 4);
      await store.write(body(Buffer.alloc(4)), 'old-consumed', 0);
      await store.consumed('old-consumed', 'user-1', 'job-1');
      advance(20 * HOUR);
      await create('young-partial', 100);
      await store.write(body(Buffer.alloc(10)), 'young-partial', 0);
      expect(await store.deleteExpired()).toBe(0);

      advance(5 * HOUR);
      expect(await store.deleteExpired()).toBe(2);
      expect(await objects.list('tus/old-')).toEqual([]);
      expect(await store.receiptOf('old-consumed', 'user-1')).toBeNull();
      expect((await store.getUpload('young-partial')).offset).toBe(10);
    } finally {
      await dispose();
    }
  });
});
