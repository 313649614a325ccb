/**
 * Temporary files live in the scratch folder of the data dir and never outlive their process:
 * what a process killed with SIGKILL left is removed at the next start, and a SIGTERM during an
 * upload that does not finish within the grace period leaves no partial file.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeReplies, isCompositeRequest, startFakeOpenAi, type FakeOpenAi } from '../services/analysis/test/fakeOpenAi.js';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { api, startBaret } from './helpers/process.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let fake: FakeOpenAi;
const root = mkdtempSync(join(tmpdir(), 'baret-scratch-'));

beforeAll(async () => {
  fx = await videoFixtures();
  fake = await startFakeOpenAi();
}, 60_000);
afterAll(async () => {
  await fake.close();
  await fx.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** A data dir, and a folder the child process gets as its system temp folder (TMPDIR). */
function folders(name: string) {
  const data = join(root, name, 'data');
  const sysTmp = join(root, name, 'systmp');
  mkdirSync(data, { recursive: true });
  mkdirSync(sysTmp, { recursive: true });
  const env = { BARET_DATA_DIR: data, WEB_DIST_DIR: data, TMPDIR: sysTmp };
  /** Every temporary file or folder of Baret, wherever it was put. */
  const leftovers = (): string[] =>
    [join(data, 'tmp'), sysTmp].flatMap((dir) => {
      try {
        return readdirSync(dir).filter((n) => n.startsWith('baret-')).map((n) => join(dir, n));
      } catch {
        return [];
      }
    });
  return { env, leftovers };
}

async function login(url: string, email: string): Promise<string> {
  await api(url, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  const res = await api<{ access_token: string }>(url, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  return res.body.access_token;
}

async function until<T>(fn: () => T | undefined | false): Promise<T> {
  for (;;) {
    const v = fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('temporary files', () => {
  it('left by a process killed with SIGKILL mid-job are gone after the restart', async () => {
    const { env, leftovers } = folders('sigkill');
    const childEnv = { ...env, SHUTDOWN_GRACE_MS: '3000', OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4o-mini' };
    let reached!: () => void;
    const analysing = new Promise<void>((r) => (reached = r));
    fake.setDefault((req) => {
      if (!isCompositeRequest(req)) return fakeReplies.default();
      reached();
      return fakeReplies.hang();
    });
    let baret = await startBaret(childEnv);
    const token = await login(baret.url, 'killed@example.com');
    const form = new FormData();
    form.append('payload', JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }));
    form.append('file', new Blob([readFileSync(await fx.testsrc('scratch.mp4', { seconds: 4 }))], { type: 'video/mp4' }), 'pole.mp4');
    const submitted = await fetch(`${baret.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    expect(submitted.status).toBe(202);
    await analysing; // the job's copy of its video is on disk while the model is asked
    baret.child.kill('SIGKILL');
    await baret.exited;
    const left = leftovers();
    expect(left.length).toBeGreaterThan(0);

    fake.setDefault(() => fakeReplies.default());
    baret = await startBaret(childEnv);
    try {
      for (const path of left) expect(() => statSync(path), path).toThrow();
    } finally {
      baret.child.kill('SIGTERM');
      await baret.exited;
    }
    expect(leftovers()).toEqual([]);
  }, 120_000);

  it('of an upload cut short by SIGTERM (past the grace period) are removed', async () => {
    const { env, leftovers } = folders('sigterm');
    const baret = await startBaret({ ...env, SHUTDOWN_GRACE_MS: '500' });
    const token = await login(baret.url, 'slow@example.com');
    const boundary = 'baretboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n` +
        `${JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const { port } = new URL(baret.url);
    // A client that announces 100 MB and sends only the first 2 MB, then goes quiet.
    const req = request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/analyze',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(100 * 1024 * 1024) },
    });
    req.on('error', () => undefined);
    req.write(head);
    req.write(Buffer.alloc(2 * 1024 * 1024, 7));
    const partial = await until(() => leftovers().find((p) => p.includes('baret-upload-') && statSync(p).size > 0));
    expect(partial).toBeTruthy();

    baret.child.kill('SIGTERM');
    await baret.exited;
    req.destroy();
    expect(leftovers()).toEqual([]);
  }, 120_000);
});
