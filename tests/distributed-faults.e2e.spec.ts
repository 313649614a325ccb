/**
 * Issue 27: the distributed run survives engine outages without an operator. One engine at a time
 * is killed with SIGKILL while a job runs and the runner (scripts/stack.ts) brings it back; the
 * job finishes, its history is intact, no request got a 500 or hung, and every service is alive
 * afterwards. Kafka is also held down for 3 minutes mid-job. The assertions poll with generous
 * deadlines and never measure time: CI runs this on a busy 2-core machine.
 */
import { readFileSync } from 'node:fs';
import { engineInstalled, waitUntil } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { distributedEngines, startDistributedStack, type DistributedStack, type EngineName, type StackEvent } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { api } from './helpers/process.js';
import { confirmAccount } from './helpers/confirmEmail.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('distributed fault tests', ok, engine));

interface Job {
  job_id: string;
  status: string;
  error: string | null;
  logs: Array<{ event: string; data?: Record<string, unknown> }>;
}

/** A request's deadline: past it, the request counts as hung. */
const REQUEST_DEADLINE_MS = 30_000;

/*
 * The Kafka outages run in CI like the others. They were opt-in for a while: with a second test run
 * on the machine, the broker killed with SIGKILL could not start again ("Socket server failed to
 * bind to 127.0.0.1:…: Address already in use") because another process had taken one of its
 * ports, handed out by the OS from the ephemeral range, while it was down. Engines and services now
 * get reserved ports below that range, locked across processes (services/platform/src/testing/
 * engines/ports.ts), so a restart always finds its ports free.
 */

describe.skipIf(!installed)('distributed Baret through engine outages', () => {
  let stack: DistributedStack;
  let video: Buffer;
  let fx: Awaited<ReturnType<typeof videoFixtures>>;
  let user: { token: string; key: string };
  const events: StackEvent[] = [];
  /** Lines a service wrote that are not JSON log lines (a raw stack of a crash, say). */
  const raw: string[] = [];
  /** Every answer the clients got while the faults happened. */
  const answers: Array<{ path: string; status: number | 'hung' | 'refused' }> = [];

  const call = async <T>(path: string, init: RequestInit & { token?: string } = {}) => api<T>(stack.gateway, path, init);

  /** One request as a client would make it, its outcome recorded. */
  async function observed(path: string, token: string): Promise<void> {
    try {
      const res = await fetch(`${stack.gateway}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      await res.arrayBuffer();
      answers.push({ path, status: res.status });
      if (res.status === 503) expect(res.headers.get('retry-after')).toBe('1');
    } catch (e) {
      answers.push({ path, status: (e as Error).name === 'TimeoutError' ? 'hung' : 'refused' });
    }
  }

  /** Clients polling the API (a job, the account, the history; a login token and an API key) until stopped. */
  function pollClients(jobId: string): () => Promise<void> {
    let running = true;
    const loop = async () => {
      while (running) {
        await Promise.all([
          observed(`/jobs/${jobId}`, user.token),
          observed('/auth/me', user.key),
          observed('/jobs', user.token),
        ]);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const done = loop();
    return async () => {
      running = false;
      await done;
    };
  }

  async function submit(): Promise<string> {
    const body = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 6, frames_per_composite: 3 }) },
      { name: 'pole.mp4', type: 'video/mp4', data: video },
    );
    // The API itself may be briefly unavailable (503) while an engine comes back: retry as a client would.
    for (;;) {
      const res = await fetch(`${stack.gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${user.token}` }, body: body.payload });
      const answer = (await res.json()) as { job_id: string };
      if (res.status === 503) {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      expect(res.status, JSON.stringify(answer)).toBe(202);
      return answer.job_id;
    }
  }

  async function job(id: string): Promise<Job | null> {
    const res = await call<Job>(`/jobs/${id}`, { token: user.token, headers: { 'accept-language': 'en' } }).catch(() => null);
    return res?.status === 200 ? res.body : null;
  }

  async function waitJob(id: string, ok: (j: Job) => boolean, what: string, timeoutMs = 600_000): Promise<Job> {
    let last: Job | null = null;
    await waitUntil(async () => ((last = await job(id)) !== null && ok(last)), timeoutMs, () => `job ${id} never ${what}: ${last?.status} ${JSON.stringify(last?.logs.map((l) => l.event))}`);
    return last!;
  }

  /** The history of a job that went through an outage: every step once, in order, done, nothing refunded or failed. */
  function expectIntactHistory(done: Job): void {
    expect(done.status, done.error ?? '').toBe('done');
    const steps = done.logs.map((l) => l.event);
    expect(steps[0]).toBe('job_queued');
    expect(steps.at(-1)).toBe('job_completed');
    for (const once of ['job_queued', 'job_started', 'frames_sampled', 'composites_created', 'job_completed']) expect(steps.filter((s) => s === once), once).toHaveLength(1);
    expect(steps).not.toContain('job_failed');
    expect(steps).not.toContain('job_resumed');
  }

  async function expectEverythingAlive(): Promise<void> {
    for (const [name, p] of stack.procs) expect(p.child.exitCode, `${name} exited`).toBeNull();
    await waitUntil(async () => (await call('/readyz')).status === 200, 300_000, () => 'the gateway never became ready again');
    const me = await call<{ email: string }>('/auth/me', { token: user.key });
    expect(me.status).toBe(200);
  }

  function expectHonestAnswers(): void {
    const bad = answers.filter((a) => a.status === 'hung' || (typeof a.status === 'number' && a.status >= 500 && a.status !== 503));
    expect(bad, JSON.stringify(bad.slice(0, 10))).toEqual([]);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    answers.length = 0;
  }

  beforeAll(async () => {
    fx = await videoFixtures();
    video = readFileSync((await fx.photos('site.mp4', 8)).path);
    stack = await startDistributedStack({
      workers: 1,
      env: { BARET_ADMIN_EMAILS: 'admin@baret.test', KAFKA_SESSION_TIMEOUT_MS: '6000', RATE_LIMIT_PER_MINUTE: '100000' },
      // Every process's lines, for the post-mortem of a failed run (FAULTS_LOG_DIR).
      logDir: process.env.FAULTS_LOG_DIR,
      onEvent: (e) => {
        events.push(e);
        if (e.kind !== 'started' || e.restart > 0) process.stderr.write(`[stack] ${JSON.stringify(e)}\n`);
      },
      onLine: (name, line) => {
        // Every line a service writes is JSON, outages included: anything else is shown, and failed below.
        if (line.trim() && !line.startsWith('{')) {
          raw.push(`[${name}] ${line.slice(0, 500)}`);
          process.stderr.write(`[${name}] NOT JSON: ${line.slice(0, 500)}\n`);
        }
        else if (/"level":"(warn|error|fatal)"/.test(line)) process.stderr.write(`[${name}] ${line.slice(0, 600)}\n`);
      },
    });
    const admin = await call<{ access_token: string }>('/auth/register', { method: 'POST', body: JSON.stringify({ email: 'admin@baret.test', password: 'correct horse battery' }) }).then(() =>
      call<{ access_token: string }>('/auth/login', { method: 'POST', body: JSON.stringify({ email: 'admin@baret.test', password: 'correct horse battery' }) }),
    );
    await confirmAccount(stack.gateway, { env: stack.env }, 'admin@baret.test', 'correct horse battery'); // an admin once confirmed (issue 37)
    await call('/auth/register', { method: 'POST', body: JSON.stringify({ email: 'crew@example.com', password: 'correct horse battery' }) });
    const login = await call<{ access_token: string }>('/auth/login', { method: 'POST', body: JSON.stringify({ email: 'crew@example.com', password: 'correct horse battery' }) });
    const me = await call<{ id: string }>('/auth/me', { token: login.body.access_token });
    const key = await call<{ token: string }>('/auth/tokens', { method: 'POST', body: JSON.stringify({ name: 'truck' }), token: login.body.access_token });
    user = { token: login.body.access_token, key: key.body.token };
    const unlimited = await call(`/admin/users/${me.body.id}/quota`, {
      method: 'PATCH',
      token: admin.body.access_token,
      body: JSON.stringify({ plan_name: 'enterprise', daily_limit: null, monthly_limit: null, lifetime_limit: null }),
    });
    expect(unlimited.status).toBe(200);
  }, 600_000);

  afterAll(async () => {
    await stack?.close();
    await fx?.dispose();
  }, 180_000);

  const killMidJob = (engine: EngineName) => async () => {
    const id = await submit();
    const stop = pollClients(id);
    try {
      await waitJob(id, (j) => j.logs.some((l) => l.event === 'frames_sampled'), 'got under way');
      const restartsBefore = events.filter((e) => e.kind === 'started' && e.name === engine).length;
      await stack.killEngine(engine);
      // The runner brings it back by itself.
      await waitUntil(
        async () => events.filter((e) => e.kind === 'started' && e.name === engine).length > restartsBefore,
        300_000,
        () => `${engine} was not started again: ${events.filter((e) => e.kind === 'restart-failed' && e.name === engine).map((e) => (e.kind === 'restart-failed' ? e.error : '')).pop() ?? 'no attempt failed'}`,
      );
      expectIntactHistory(await waitJob(id, (j) => ['done', 'error', 'cancelled'].includes(j.status), 'ended'));
    } finally {
      await stop();
    }
    await expectEverythingAlive();
    expectHonestAnswers();
  };

  it('PostgreSQL killed with SIGKILL mid-job', killMidJob('postgres'), 900_000);
  it('FerretDB killed with SIGKILL mid-job', killMidJob('ferretdb'), 900_000);
  it('MinIO killed with SIGKILL mid-job', killMidJob('minio'), 900_000);
  it('Kafka killed with SIGKILL mid-job', killMidJob('kafka'), 900_000);

  it('MinIO down: POST /analyze and a resumable upload are answered 503 with Retry-After, never 500; the upload resumes from its offset afterwards', async () => {
    const TUS = { 'tus-resumable': '1.0.0' };
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const created = await fetch(`${stack.gateway}/uploads`, {
      method: 'POST',
      headers: { ...TUS, authorization: `Bearer ${user.token}`, 'upload-length': String(video.length), 'upload-metadata': `filename ${b64('cut.mp4')},filetype ${b64('video/mp4')}` },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    const uploadUrl = new URL(location, stack.gateway).toString();
    const half = Math.floor(video.length / 2);
    const first = await fetch(uploadUrl, { method: 'PATCH', headers: { ...TUS, authorization: `Bearer ${user.token}`, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: video.subarray(0, half) });
    expect(first.status).toBe(204);

    await stack.killEngine('minio', { hold: true });
    try {
      const head = await fetch(uploadUrl, { method: 'HEAD', headers: { ...TUS, authorization: `Bearer ${user.token}` }, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      expect(head.status).toBe(503);
      expect(head.headers.get('retry-after')).toBe('1');
      const patch = await fetch(uploadUrl, {
        method: 'PATCH',
        headers: { ...TUS, authorization: `Bearer ${user.token}`, 'upload-offset': String(half), 'content-type': 'application/offset+octet-stream' },
        body: video.subarray(half),
        signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
      });
      expect(patch.status).toBe(503);
      expect(patch.headers.get('retry-after')).toBe('1');
      const form = await multipart({ payload: JSON.stringify({ job_type: 'genel_saha_girisi' }) }, { name: 'pole.mp4', type: 'video/mp4', data: video });
      const analyze = await fetch(`${stack.gateway}/analyze`, { method: 'POST', headers: { ...form.headers, authorization: `Bearer ${user.token}`, 'accept-language': 'tr' }, body: form.payload, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      expect(analyze.status).toBe(503);
      expect(analyze.headers.get('retry-after')).toBe('1');
      expect(((await analyze.json()) as { code: string }).code).toBe('service_unavailable');
    } finally {
      await stack.releaseEngine('minio');
    }
    let offset = -1;
    await waitUntil(
      async () => {
        const head = await fetch(uploadUrl, { method: 'HEAD', headers: { ...TUS, authorization: `Bearer ${user.token}` } });
        offset = Number(head.headers.get('upload-offset') ?? -1);
        return head.status === 200;
      },
      120_000,
      () => 'the upload is not reachable after MinIO came back',
    );
    expect(offset).toBe(half);
    const rest = await fetch(uploadUrl, { method: 'PATCH', headers: { ...TUS, authorization: `Bearer ${user.token}`, 'upload-offset': String(half), 'content-type': 'application/offset+octet-stream' }, body: video.subarray(half) });
    expect(rest.status).toBe(204);
    await expectEverythingAlive();
  }, 600_000);

  it('Kafka down for 3 minutes mid-job: the job still finishes, as one attempt', async () => {
    const id = await submit();
    const stop = pollClients(id);
    try {
      await waitJob(id, (j) => j.logs.some((l) => l.event === 'frames_sampled'), 'got under way');
      await stack.killEngine('kafka', { hold: true });
      await new Promise((r) => setTimeout(r, 180_000));
      await stack.releaseEngine('kafka');
      expectIntactHistory(await waitJob(id, (j) => ['done', 'error', 'cancelled'].includes(j.status), 'ended'));
    } finally {
      await stop();
    }
    await expectEverythingAlive();
    expectHonestAnswers();
  }, 1_200_000);

  it('no process of the stack ever had to be started again, and every line they wrote was JSON', () => {
    expect(events.filter((e) => e.kind === 'died' && !(['postgres', 'kafka', 'ferretdb', 'minio'] as string[]).includes(e.name))).toEqual([]);
    // Node's own warnings aside, nothing outside the JSON log: no raw stack of an unhandled error.
    expect(raw.filter((l) => !/\(node:\d+\) \w*Warning/.test(l))).toEqual([]);
  });
});
