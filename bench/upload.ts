/**
 * Peak memory of a 1 GiB upload through `POST /analyze`: a real Baret process (as `npm start`
 * runs it) receives a 1 GiB video over HTTP, streamed from disk by this process; its peak
 * resident memory (VmHWM) is read from /proc before and after.
 *
 * Run alone with `npx tsx bench/upload.ts`, or through `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { api, startBaret } from '../tests/helpers/process.js';

const OUT = join(import.meta.dirname, 'out');
const GIB = 1024 ** 3;

/** A 1 GiB MKV: a short real video, padded with a void element MKV readers skip. */
function makeVideo(): string {
  mkdirSync(OUT, { recursive: true });
  const file = join(OUT, 'upload-1gib.mkv');
  if (existsSync(file) && statSync(file).size >= GIB) return file;
  const small = join(OUT, 'upload-small.mkv');
  execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=10', '-t', '4', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', small]);
  const head = readFileSync(small);
  // An EBML Void element (ID 0xEC) with an 8-byte size, appended after the segment: skipped by readers.
  const pad = GIB - head.length;
  const header = Buffer.alloc(9);
  header[0] = 0xec;
  header.writeUInt8(0x01, 1);
  header.writeUIntBE(0, 2, 1);
  header.writeUIntBE(pad - 9, 3, 6);
  writeFileSync(file, Buffer.concat([head, header]));
  const zeros = Buffer.alloc(16 * 1024 * 1024);
  let left = pad - 9;
  const fd = openSync(file, 'a');
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    writeSync(fd, zeros, 0, n);
    left -= n;
  }
  closeSync(fd);
  return file;
}

function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

export async function runUploadBench(): Promise<{ seconds: number; baselineMiB: number; peakMiB: number; growthMiB: number }> {
  const video = makeVideo();
  const size = statSync(video).size;
  console.log(`\n## Upload — ${(size / GIB).toFixed(2)} GiB video through POST /analyze into a real Baret process`);
  const dir = mkdtempSync(join(tmpdir(), 'baret-bench-upload-'));
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, LOG_LEVEL: 'info' });
  try {
    await api(baret.url, '/auth/register', { method: 'POST', body: JSON.stringify({ email: 'bench@example.com', password: 'password 123' }) });
    const { body } = await api<{ access_token: string }>(baret.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email: 'bench@example.com', password: 'password 123' }) });
    await new Promise((r) => setTimeout(r, 1000));
    const before = memoryOf(baret.child.pid!);

    const boundary = `----baret${Date.now()}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n${JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mkv"\r\nContent-Type: video/x-matroska\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    async function* parts() {
      yield head;
      for await (const chunk of createReadStream(video, { highWaterMark: 1024 * 1024 })) yield chunk as Buffer;
      yield tail;
    }
    const started = Date.now();
    const res = await fetch(`${baret.url}/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${body.access_token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
      body: Readable.toWeb(Readable.from(parts())) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const answer = await res.text();
    const seconds = (Date.now() - started) / 1000;
    const after = memoryOf(baret.child.pid!);
    const growth = after.peakMiB - before.rssMiB;
    console.log(`| status | seconds | MiB/s | RSS before | peak RSS | peak growth |`);
    console.log(`|---|---:|---:|---:|---:|---:|`);
    console.log(`| ${res.status} | ${seconds.toFixed(1)} | ${(size / 2 ** 20 / seconds).toFixed(0)} | ${before.rssMiB.toFixed(0)} MiB | ${after.peakMiB.toFixed(0)} MiB | ${growth.toFixed(0)} MiB |`);
    if (res.status !== 202) console.log(`answer: ${answer}`);
    return { seconds, baselineMiB: before.rssMiB, peakMiB: after.peakMiB, growthMiB: growth };
  } finally {
    baret.child.kill('SIGTERM');
    await baret.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runUploadBench();
