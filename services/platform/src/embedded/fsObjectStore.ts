import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotFoundError } from '../errors.js';
import { assertValidKey, type ObjectInfo, type ObjectStore, type PutOptions } from '../ports/objectStore.js';

const META_SUFFIX = '.meta.json';

/**
 * Objects as files under a folder: `objects/<key>` plus a small `meta/<key>.meta.json`. A put
 * streams into `tmp/` and is renamed into place after fsync, so an object is whole or absent.
 */
export class FsObjectStore implements ObjectStore {
  private readonly objects: string;
  private readonly meta: string;
  private readonly tmp: string;

  constructor(root: string) {
    this.objects = join(root, 'objects');
    this.meta = join(root, 'meta');
    this.tmp = join(root, 'tmp');
  }

  async init(): Promise<this> {
    await Promise.all([this.objects, this.meta, this.tmp].map((d) => mkdir(d, { recursive: true })));
    // Leftovers of puts interrupted by a crash are never visible objects: drop them.
    for (const f of await readdir(this.tmp)) await rm(join(this.tmp, f), { force: true });
    return this;
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions = {}): Promise<ObjectInfo> {
    assertValidKey(key);
    const tmpFile = join(this.tmp, randomUUID());
    try {
      const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
      await pipeline(source, createWriteStream(tmpFile));
      const handle = await open(tmpFile, 'r+');
      await handle.sync();
      await handle.close();
      const target = join(this.objects, key);
      await mkdir(dirname(target), { recursive: true });
      const metaFile = join(this.meta, key + META_SUFFIX);
      await mkdir(dirname(metaFile), { recursive: true });
      await writeFile(metaFile, JSON.stringify({ contentType: options.contentType ?? 'application/octet-stream' }));
      await rename(tmpFile, target);
      const info = await this.head(key);
      if (!info) throw new Error(`object ${key} vanished after put`);
      return info;
    } catch (e) {
      await rm(tmpFile, { force: true });
      throw e;
    }
  }

  async get(key: string): Promise<Readable> {
    assertValidKey(key);
    const file = join(this.objects, key);
    try {
      const handle = await open(file, 'r');
      return handle.createReadStream();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`Object ${key} not found`);
      throw e;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    assertValidKey(key);
    try {
      const s = await stat(join(this.objects, key));
      if (!s.isFile()) return null;
      let contentType = 'application/octet-stream';
      try {
        const meta = JSON.parse(await readFile(join(this.meta, key + META_SUFFIX), 'utf8')) as { contentType?: string };
        contentType = meta.contentType ?? contentType;
      } catch {
        /* metadata is optional */
      }
      return { key, size: s.size, contentType, lastModified: s.mtime };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await rm(join(this.objects, key), { force: true });
    await rm(join(this.meta, key + META_SUFFIX), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else keys.push(relative(this.objects, full).split(sep).join('/'));
      }
    };
    await walk(this.objects);
    return keys.filter((k) => k.startsWith(prefix)).sort();
  }

  async ping(): Promise<void> {
    await stat(this.objects);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
