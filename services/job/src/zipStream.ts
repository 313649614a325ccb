import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';

/**
 * A ZIP written as a stream (a person's export, an organisation's reviewed set): files are added one
 * at a time and the writer waits while the reader is behind, so one file at most is in memory. A
 * failure of the archive ends `out` with the error; `failed()` tells a writer to stop.
 */
export function zipStream() {
  const out = new PassThrough();
  let failed = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) {
      failed = true;
      out.destroy(err);
      return;
    }
    out.write(chunk);
    if (final) out.end();
  });
  const drained = async () => {
    if (out.writableNeedDrain) await once(out, 'drain');
  };
  return {
    out,
    failed: () => failed,
    /** One file from bytes in memory; `deflate` false for what does not compress (JPEG). */
    async add(name: string, data: Uint8Array, deflate: boolean): Promise<void> {
      const file = deflate ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
      zip.add(file);
      file.push(data, true);
      await drained();
    },
    /** One file from a stream of chunks, stored as they are (JPEGs do not compress further). */
    async addStream(name: string, chunks: AsyncIterable<unknown>): Promise<void> {
      const file = new ZipPassThrough(name);
      zip.add(file);
      for await (const chunk of chunks) {
        file.push(new Uint8Array(chunk as Buffer));
        await drained();
        if (failed) return;
      }
      file.push(new Uint8Array(0), true);
    },
    end: () => zip.end(),
  };
}
