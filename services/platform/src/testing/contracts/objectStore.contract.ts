import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../errors.js';
import type { ObjectStore } from '../../ports/objectStore.js';

export interface ObjectStoreHarness {
  store: ObjectStore;
  dispose(): Promise<void>;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** A stream of `chunks` chunks that fails after them. */
function failingStream(chunks: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < chunks) this.push(randomBytes(64 * 1024));
      else this.destroy(new Error('client went away'));
    },
  });
}

/** The guarantees every ObjectStore adapter keeps. */
export function objectStoreContract(name: string, create: () => Promise<ObjectStoreHarness>): void {
  describe(`ObjectStore contract: ${name}`, () => {
    const withHarness = (fn: (s: ObjectStore) => Promise<void>) => async () => {
      const h = await create();
      try {
        await fn(h.store);
      } finally {
        await h.dispose();
      }
    };

    it('streams an object in and out unchanged, with size and content type', withHarness(async (s) => {
      const body = randomBytes(3 * 1024 * 1024 + 17);
      const info = await s.put('uploads/u1/video.mp4', Readable.from([body.subarray(0, 1000), body.subarray(1000)]), {
        contentType: 'video/mp4',
      });
      expect(info.size).toBe(body.length);
      const back = await readAll(await s.get('uploads/u1/video.mp4'));
      expect(createHash('sha256').update(back).digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
      const head = await s.head('uploads/u1/video.mp4');
      expect(head).toMatchObject({ key: 'uploads/u1/video.mp4', size: body.length, contentType: 'video/mp4' });
    }));

    it('accepts a buffer body and replaces an existing object', withHarness(async (s) => {
      await s.put('a/b.txt', Buffer.from('one'));
      await s.put('a/b.txt', Buffer.from('two!'), { contentType: 'text/plain' });
      expect((await readAll(await s.get('a/b.txt'))).toString()).toBe('two!');
      expect((await s.head('a/b.txt'))?.size).toBe(4);
    }));

    it('stores a stream that ends without a byte as an empty object (an empty resumable-upload PATCH)', withHarness(async (s) => {
      const info = await s.put('empty/stream', Readable.from([]), { contentType: 'application/offset+octet-stream' });
      expect(info.size).toBe(0);
      expect(await s.head('empty/stream')).toMatchObject({ size: 0 });
      expect(await readAll(await s.get('empty/stream'))).toEqual(Buffer.alloc(0));
      expect(await s.list('empty/')).toEqual(['empty/stream']);
    }));

    it('answers missing objects: head null, get NotFoundError, delete idempotent', withHarness(async (s) => {
      expect(await s.head('missing/x')).toBeNull();
      await expect(s.get('missing/x')).rejects.toBeInstanceOf(NotFoundError);
      await s.delete('missing/x');
    }));

    it('deletes objects and lists keys by prefix', withHarness(async (s) => {
      for (const k of ['jobs/1/raw', 'jobs/1/frames/0001.jpg', 'jobs/10/raw', 'jobs/2/raw']) await s.put(k, Buffer.from(k));
      expect(await s.list('jobs/1/')).toEqual(['jobs/1/frames/0001.jpg', 'jobs/1/raw']);
      await s.delete('jobs/1/raw');
      expect(await s.list('jobs/1/')).toEqual(['jobs/1/frames/0001.jpg']);
      expect(await s.head('jobs/1/raw')).toBeNull();
    }));

    it('leaves nothing behind when the body fails part-way', withHarness(async (s) => {
      await expect(s.put('broken/upload', failingStream(4))).rejects.toThrow();
      expect(await s.head('broken/upload')).toBeNull();
      expect(await s.list('broken/')).toEqual([]);
    }));

    it('refuses keys that climb out of the store', withHarness(async (s) => {
      await expect(s.put('../etc/passwd', Buffer.from('x'))).rejects.toThrow(/invalid object key/);
      await expect(s.put('a/../../b', Buffer.from('x'))).rejects.toThrow(/invalid object key/);
      await expect(s.put('/abs', Buffer.from('x'))).rejects.toThrow(/invalid object key/);
    }));
  });
}
