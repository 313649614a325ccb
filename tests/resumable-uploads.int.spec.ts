import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { multipart, waitForJob } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: Buffer;
let app: TestApp;
const MAX = 2 * 1024 * 1024;

beforeAll(async () => {
  fx = await videoFixtures();
  video = readFileSync((await fx.photos('tus.mp4', 8)).path);
  app = await startTestApp({ UPLOAD_MAX_BYTES: String(MAX) }, { realClock: true });
}, 60_000);
afterAll(async () => {
  await app.close();
  await fx.dispose();
});

let n = 0;
const fresh = () => app.signUp(`tus${++n}@example.com`);
const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function create(token: string | undefined, size: number, filename = 'Direk 7.mp4') {
  return app.request({
    method: 'POST',
    url: '/uploads',
    token,
    headers: { ...TUS, 'upload-length': String(size), 'upload-metadata': `filename ${b64(filename)},filetype ${b64('video/mp4')}` },
  });
}
const idOf = (location: string | undefined) => String(location).split('/').pop()!;
const patch = (token: string, id: string, offset: number, bytes: Buffer) =>
  app.request({ method: 'PATCH', url: `/uploads/${id}`, token, headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, payload: bytes });
const head = (token: string, id: string) => app.request({ method: 'HEAD', url: `/uploads/${id}`, token, headers: TUS });
const analyze = async (token: string, payload: Record<string, unknown>) =>
  app.request({ method: 'POST', url: '/analyze', token, ...(await multipart({ payload: JSON.stringify(payload) })) });
const SETTINGS = { job_type: 'auto', sampling: 'uniform', target_composites: 2, frames_per_composite: 4 };

describe('resumable uploads (tus) through the gateway', () => {
  it('needs a login, and refuses a declared size over UPLOAD_MAX_BYTES with 413', async () => {
    expect((await create(undefined, 100)).statusCode).toBe(401);
    const user = await fresh();
    expect((await create(user.token, MAX + 1)).statusCode).toBe(413);
    // A deferred length is not offered: the size must be known (and checked) up front.
    const deferred = await app.request({ method: 'POST', url: '/uploads', token: user.token, headers: { ...TUS, 'upload-defer-length': '1' } });
    expect(deferred.statusCode).toBe(501);
  });

  it('resumes at the stored offset, hides the upload from other users, and becomes a job via payload.upload_id', async () => {
    const owner = await fresh();
    const other = await fresh();
    const created = await create(owner.token, video.length);
    expect(created.statusCode).toBe(201);
    expect(created.headers['upload-expires']).toBeTruthy();
    const id = idOf(created.headers.location as string);

    const half = Math.floor(video.length / 2);
    const first = await patch(owner.token, id, 0, video.subarray(0, half));
    expect(first.statusCode).toBe(204);
    expect(first.headers['upload-offset']).toBe(String(half));

    // Someone else cannot see, continue, delete or use it: 404 as if it did not exist.
    expect((await head(other.token, id)).statusCode).toBe(404);
    expect((await patch(other.token, id, half, video.subarray(half))).statusCode).toBe(404);
    expect((await app.request({ method: 'DELETE', url: `/uploads/${id}`, token: other.token, headers: TUS })).statusCode).toBe(404);
    expect((await analyze(other.token, { ...SETTINGS, upload_id: id })).statusCode).toBe(404);

    // The owner learns where to continue, and a wrong offset is refused.
    const resumed = await head(owner.token, id);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.headers['upload-offset']).toBe(String(half));
    expect(resumed.headers['upload-length']).toBe(String(video.length));
    expect((await patch(owner.token, id, 0, video.subarray(0, 10))).statusCode).toBe(409);
    // Not finished yet: it cannot become a job.
    expect((await analyze(owner.token, { ...SETTINGS, upload_id: id })).statusCode).toBe(400);

    const rest = await patch(owner.token, id, half, video.subarray(half));
    expect(rest.statusCode).toBe(204);
    expect(rest.headers['upload-offset']).toBe(String(video.length));

    const res = await analyze(owner.token, { ...SETTINGS, upload_id: id });
    expect(res.statusCode).toBe(202);
    const { job_id } = res.json() as { job_id: string };
    expect(await app.infra.objects.list(`tus/${id}/`)).toEqual([]);
    // The answer was lost and the client asks again: the same job, no second quota unit.
    const again = await analyze(owner.token, { ...SETTINGS, upload_id: id });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ job_id, status: 'queued' });

    const job = await waitForJob(app, owner.token, job_id);
    expect(job.status).toBe('done');
    expect(job.input_filename).toBe('Direk 7.mp4');
    const me = (await app.request({ method: 'GET', url: '/auth/me', token: owner.token })).json() as { quota: { lifetime_used: number } };
    expect(me.quota.lifetime_used).toBe(1);
  }, 90_000);

  it('removes a rejected upload (not a video) and keeps multipart working; file and upload_id together are a 400', async () => {
    const user = await fresh();
    const junk = Buffer.from('these are not the frames you are looking for');
    const id = idOf((await create(user.token, junk.length, 'notes.mp4')).headers.location as string);
    expect((await patch(user.token, id, 0, junk)).statusCode).toBe(204);
    const res = await analyze(user.token, { ...SETTINGS, upload_id: id });
    expect(res.statusCode).toBe(415);
    expect(await app.infra.objects.list(`tus/${id}/`)).toEqual([]);
    expect((await head(user.token, id)).statusCode).toBe(404);

    const both = await app.request({
      method: 'POST',
      url: '/analyze',
      token: user.token,
      ...(await multipart({ payload: JSON.stringify({ ...SETTINGS, upload_id: id }) }, { name: 'a.mp4', type: 'video/mp4', data: video })),
    });
    expect(both.statusCode).toBe(400);
    expect((await analyze(user.token, { ...SETTINGS, upload_id: 'x' })).statusCode).toBe(400);
    expect((await analyze(user.token, SETTINGS)).json()).toMatchObject({ status: 400, detail: expect.stringContaining('"file" field is missing') });
  });

  it("refuses an address that names another user's upload after the own one (the query string), and leaves that upload as it was", async () => {
    const victim = await fresh();
    const stranger = await fresh();
    const target = idOf((await create(victim.token, 100)).headers.location as string);
    expect((await patch(victim.token, target, 0, Buffer.alloc(40, 1))).statusCode).toBe(204);
    const own = idOf((await create(stranger.token, 100)).headers.location as string);

    // The stranger's own id in the path, the victim's after a slash in the query string.
    const sneaky = `/uploads/${own}?x=/${target}`;
    const headed = await app.request({ method: 'HEAD', url: sneaky, token: stranger.token, headers: TUS });
    expect(headed.statusCode).toBe(400);
    expect(headed.headers['upload-offset']).toBeUndefined();
    const patched = await app.request({
      method: 'PATCH',
      url: sneaky,
      token: stranger.token,
      headers: { ...TUS, 'upload-offset': '40', 'content-type': 'application/offset+octet-stream' },
      payload: Buffer.alloc(60, 2),
    });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toMatchObject({ status: 400 });
    expect((await app.request({ method: 'DELETE', url: sneaky, token: stranger.token, headers: TUS })).statusCode).toBe(400);

    // The victim's upload is untouched: same offset, still there; the stranger's own is untouched too.
    const still = await head(victim.token, target);
    expect(still.statusCode).toBe(200);
    expect(still.headers['upload-offset']).toBe('40');
    expect((await head(stranger.token, own)).headers['upload-offset']).toBe('0');
  });

  it('answers a PATCH without a body at the stored offset with 204 and the offset unchanged (tus), at the start and part-way', async () => {
    const user = await fresh();
    const id = idOf((await create(user.token, 100)).headers.location as string);
    for (const [offset, before] of [[0, null], [30, Buffer.alloc(30, 7)]] as const) {
      if (before) expect((await patch(user.token, id, 0, before)).statusCode).toBe(204);
      const empty = await patch(user.token, id, offset, Buffer.alloc(0));
      expect(empty.statusCode, empty.body).toBe(204);
      expect(empty.headers['upload-offset']).toBe(String(offset));
      expect((await head(user.token, id)).headers['upload-offset']).toBe(String(offset));
    }
  });

  it('lets the owner terminate an upload', async () => {
    const user = await fresh();
    const id = idOf((await create(user.token, 100)).headers.location as string);
    expect((await patch(user.token, id, 0, Buffer.alloc(30))).statusCode).toBe(204);
    expect((await app.request({ method: 'DELETE', url: `/uploads/${id}`, token: user.token, headers: TUS })).statusCode).toBe(204);
    expect(await app.infra.objects.list(`tus/${id}/`)).toEqual([]);
  });
});
