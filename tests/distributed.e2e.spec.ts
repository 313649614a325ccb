/**
 * The distributed run end to end (issue 10): real engines (PostgreSQL event store, Kafka 4,
 * FerretDB for MongoDB, MinIO for S3) and every service as its own OS process, compiled
 * (`npm run build:services`, `node bin/baret.mjs <service>`), behind the gateway.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as Minio from 'minio';
import { engineInstalled, waitUntil } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp } from './helpers/app.js';
import { confirmEmail } from './helpers/confirmEmail.js';
import { distributedEngines, startDistributedStack, type DistributedStack, type StackProcess } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { startOtlpReceiver, type ReceivedSpan } from './helpers/otlp.js';
import { api } from './helpers/process.js';
import { raceSubmissions, usedFromEvents } from './helpers/quotaRace.js';
import pg from 'pg';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('distributed end-to-end', ok, engine));

interface Job {
  job_id: string;
  status: string;
  error: string | null;
  result: Record<string, unknown> | null;
  logs: Array<{ event: string; data?: Record<string, unknown> }>;
}

describe.skipIf(!installed)('distributed Baret: every service its own process', () => {
  let stack: DistributedStack;
  let s3: Minio.Client;
  let gateway: string;
  let fx: Awaited<ReturnType<typeof videoFixtures>>;
  let video: Buffer;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const start = async (name: StackProcess) => stack.start(name);
  const stop = (name: StackProcess, signal?: NodeJS.Signals) => stack.stop(name, signal);
  const port = (name: StackProcess) => new URL(stack.env[`${name.toUpperCase()}_URL`]!).port;
  const call = <T>(path: string, init: RequestInit & { token?: string } = {}) => api<T>(gateway, path, init);
  const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

  async function signUp(email: string): Promise<{ token: string; id: string }> {
    const reg = await call<{ id: string }>('/auth/register', json({ email, password: 'correct horse battery' }));
    expect(reg.status).toBe(201);
    const login = await call<{ access_token: string }>('/auth/login', json({ email, password: 'correct horse battery' }));
    expect(login.status).toBe(200);
    const me = await call<{ id: string }>('/auth/me', { token: login.body.access_token });
    return { token: login.body.access_token, id: me.body.id };
  }

  async function submit(token: string, params: Record<string, unknown> = {}): Promise<string> {
    const body = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 3, frames_per_composite: 2, ...params }) },
      { name: 'pole.mp4', type: 'video/mp4', data: video },
    );
    const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${token}` }, body: body.payload });
    const answer = (await res.json()) as { job_id: string };
    expect(res.status, JSON.stringify(answer)).toBe(202);
    return answer.job_id;
  }

  async function waitJob(token: string, id: string, timeoutMs = 120_000): Promise<Job> {
    let job: Job | undefined;
    await waitUntil(
      async () => {
        const res = await call<Job>(`/jobs/${id}`, { token, headers: { 'accept-language': 'en' } });
        job = res.body;
        return ['done', 'error', 'cancelled'].includes(job.status);
      },
      timeoutMs,
      () => `job ${id} still ${job?.status}: ${JSON.stringify(job?.logs.map((l) => l.event))}`,
    );
    return job!;
  }

  const mediaKeys = async (prefix: string): Promise<string[]> => {
    const keys: string[] = [];
    for await (const item of s3.listObjectsV2(stack.s3.bucket, `media/${prefix}`, true) as AsyncIterable<{ name?: string }>) if (item.name) keys.push(item.name);
    return keys;
  };
  const workerOf = (jobId: string): StackProcess | undefined =>
    (['analysis', 'analysis-2'] as const).find((w) => stack.procs.get(w)?.logs.some((l) => l.msg === 'job received' && l.job_id === jobId));

  beforeAll(async () => {
    fx = await videoFixtures();
    video = readFileSync((await fx.photos('site.mp4', 6)).path);
    mkdirSync(join(fx.dir, 'web'));
    writeFileSync(join(fx.dir, 'web', 'index.html'), '<!doctype html><title>Baret</title>');
    // Every process exports its spans here (OTLP/HTTP JSON), in batches 200 ms apart.
    otlp = await startOtlpReceiver();
    stack = await startDistributedStack({
      workers: 2,
      env: {
        BARET_ADMIN_EMAILS: 'admin@baret.test',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        RATE_LIMIT_PER_MINUTE: '100000',
        // The quota race sends each burst from its own client address (X-Forwarded-For), so the
        // per-address limit of POST /analyze (30 an hour) is not what refuses its submissions.
        TRUST_PROXY: 'true',
        WEB_DIST_DIR: join(fx.dir, 'web'),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      // Warnings and errors of every process reach the test's output.
      onLine: (name, line) => {
        if (/"level":"(warn|error|fatal)"/.test(line) || !line.startsWith('{')) process.stderr.write(`[${name}] ${line.slice(0, 2000)}\n`);
      },
    });
    gateway = stack.gateway;
    const u = new URL(stack.s3.endPoint);
    s3 = new Minio.Client({ endPoint: u.hostname, port: Number(u.port), useSSL: false, accessKey: stack.s3.accessKey, secretKey: stack.s3.secretKey, pathStyle: true });
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    await otlp?.close();
    await fx?.dispose();
  }, 120_000);

  it('answers the public API through the gateway only: a service refuses a request without the service credential', async () => {
    const direct = await api<{ status: number; detail: string }>(`http://127.0.0.1:${port('job')}`, '/jobs');
    expect(direct.status).toBe(401);
    const forged = await api(`http://127.0.0.1:${port('job')}`, '/jobs', { headers: { 'x-baret-service': 'e30.AAAA' } });
    expect(forged.status).toBe(401);
    const internal = await api(`http://127.0.0.1:${port('quota')}`, '/internal/quota/x');
    expect(internal.status).toBe(401);
    // Through the gateway, internal routes do not exist at all.
    expect((await call('/internal/routes')).status).toBe(404);
    expect((await call('/healthz')).status).toBe(200);
    expect((await call('/readyz')).status).toBe(200);
  });

  it('documents the same public API as the embedded run', async () => {
    const embedded = await startTestApp();
    try {
      const local = (await embedded.request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
      const remote = (await call<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json')).body;
      const ops = (doc: { paths: Record<string, Record<string, unknown>> }) =>
        Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
      expect(ops(remote)).toEqual(ops(local));
    } finally {
      await embedded.close();
    }
  });

  it('register → log in → API key → POST /analyze → done, with the same result shape as embedded, and the raw video gone from S3', async () => {
    const user = await signUp('crew@example.com');
    const key = await call<{ token: string }>('/auth/tokens', { ...json({ name: 'pole laptop' }), token: user.token });
    expect(key.status).toBe(201);
    const me = await call<{ email: string; quota: { daily_used: number } }>('/auth/me', { token: key.body.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('crew@example.com');

    const jobId = await submit(key.body.token);
    const job = await waitJob(key.body.token, jobId);
    expect(job.status, job.error ?? '').toBe('done');
    expect(Object.keys(job.result!)).toEqual(
      expect.arrayContaining(['job_type', 'job_display_name', 'required_groups', 'missing_groups', 'satisfied_equipment', 'not_checked', 'composites_processed', 'model_used', 'token_usage', 'evidence', 'duration_seconds']),
    );
    expect(job.result!.job_display_name).toBeTruthy();
    const events = job.logs.map((l) => l.event);
    expect(events).toEqual(expect.arrayContaining(['job_queued', 'job_started', 'frames_sampled', 'composites_created', 'composite_analyzed', 'job_completed']));
    // Evidence images come from S3 through the job service, to the owner only.
    const evidence = job.result!.evidence as Array<{ image_url: string }>;
    if (evidence.length > 0) {
      const img = await fetch(`${gateway}${evidence[0]!.image_url}`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/jpeg');
    }
    await waitUntil(async () => (await mediaKeys(`uploads/${jobId}/`)).length === 0, 10_000, () => 'raw video still in S3');
    const quota = await call<{ quota: { lifetime_used: number } }>('/auth/me', { token: user.token });
    expect(quota.body.quota.lifetime_used).toBe(1);

    // Free plan (2 analyses): the third is refused by the quota service, through the job service, in the client's language.
    await submit(user.token);
    const third = await multipart({ payload: JSON.stringify({ job_type: 'genel_saha_girisi' }) }, { name: 'pole.mp4', type: 'video/mp4', data: video });
    for (const [lang, detail] of [
      ['tr', /^Kullanım limitiniz doldu/],
      ['en', /^You have reached your usage limit/],
    ] as const) {
      const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...third.headers, authorization: `Bearer ${user.token}`, 'accept-language': lang }, body: third.payload });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await res.json()) as { detail: string }).detail).toMatch(detail);
    }
  }, 180_000);

  it('one trace from POST /analyze through the gateway, the job service, Kafka and the worker to job_completed; /metrics counts the job', async () => {
    const user = await signUp('traced@example.com');
    const form = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 2, frames_per_composite: 2 }) },
      { name: 'pole.mp4', type: 'video/mp4', data: video },
    );
    const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...form.headers, authorization: `Bearer ${user.token}` }, body: form.payload });
    expect(res.status).toBe(202);
    const requestId = res.headers.get('x-request-id');
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    expect((await waitJob(user.token, jobId)).status).toBe('done');

    // The gateway's one request log line says what was asked, how it ended, and names the trace; the
    // job service and the worker log in the same one.
    const gatewayLines = stack.procs.get('gateway')!.logs.filter((l) => l.request_id === requestId);
    const requestLine = gatewayLines.find((l) => l.msg === 'request completed');
    expect(requestLine).toMatchObject({ req: { method: 'POST', url: '/analyze' }, route: '/analyze', res: { statusCode: 202 } });
    expect(typeof requestLine?.responseTime).toBe('number');
    expect(gatewayLines.filter((l) => l.msg === 'incoming request')).toEqual([]);
    const traceId = requestLine?.trace_id as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(stack.procs.get('job')!.logs.find((l) => l.msg === 'job queued' && l.job_id === jobId)?.trace_id).toBe(traceId);
    const worker = workerOf(jobId)!;
    const workerLines = stack.procs.get(worker)!.logs.filter((l) => l.job_id === jobId);
    expect(workerLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['job received', 'job handled']));
    expect(new Set(workerLines.map((l) => l.trace_id))).toEqual(new Set([traceId]));

    // The exported spans: one connected trace across the processes, down to the job_completed event.
    const trace = () => otlp.spans.filter((s) => s.traceId === traceId);
    // The job service's command that stored job_completed, on the worker's report of the end.
    const completedPublish = (s: ReceivedSpan) => s.name === 'command record_progress' && (s.attributes['baret.events'] as string[] | undefined)?.includes('job_completed') === true;
    await waitUntil(async () => trace().some(completedPublish), 30_000, () => `spans of the trace: ${trace().map((s) => `${s.service} ${s.name}`).join(', ')}`);
    // … and on to the notification service, which tells the owner that the report is ready (issue 29).
    await waitUntil(async () => trace().some((s) => s.service === 'baret-notification' && s.name === 'job-events process'), 30_000, () => 'no notification span in the trace');
    await waitUntil(
      async () => trace().every((s) => !s.parentSpanId || trace().some((p) => p.spanId === s.parentSpanId)),
      10_000,
      () => 'a span of the trace has a parent that was never exported',
    );
    const spans = trace();
    expect(spans.filter((s) => !s.parentSpanId).map((s) => `${s.service} ${s.name}`)).toEqual(['baret-gateway POST /analyze']);
    // Identity shows only when the gateway had not cached who the token belongs to (docs/adr/0019).
    const services = new Set(spans.map((s) => s.service));
    services.delete('baret-identity');
    expect(services).toEqual(new Set(['baret-gateway', 'baret-job', 'baret-quota', 'baret-analysis', 'baret-notification']));
    const names = (service: string) => spans.filter((s) => s.service === service).map((s) => s.name);
    expect(names('baret-job')).toEqual(expect.arrayContaining(['POST /analyze', 'ffprobe', 'video.probe', 'PUT quota/internal/quota/:id/jobs/:id', 'command queue_job', 'job-events publish', 'analysis-progress process']));
    expect(names('baret-analysis')).toEqual(expect.arrayContaining(['job-events process', 'video.probe', 'ffprobe', 'ffmpeg', 'model analyze_composite 0']));
    const completed = spans.find(completedPublish)!;
    expect(completed.service).toBe('baret-job');
    expect(spans.find((s) => s.spanId === completed.parentSpanId)!.name).toBe('analysis-progress process');
    // The worker's consumer span continues the job service's publish of job_queued, across Kafka.
    const queued = spans.find((s) => s.name === 'job-events publish' && s.attributes['baret.event.type'] === 'job_queued')!;
    expect(spans.find((s) => s.service === 'baret-analysis' && s.name === 'job-events process' && s.parentSpanId === queued.spanId)).toBeDefined();

    // /metrics: open, Prometheus text, counting the job on the job service and the request on the gateway.
    const metrics = async (base: string) => {
      const r = await fetch(`${base}/metrics`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/plain');
      return r.text();
    };
    const value = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? NaN);
    await expect.poll(async () => value(await metrics(stack.procs.get('job')!.url), 'baret_jobs_finished_total{status="done"}')).toBeGreaterThanOrEqual(1);
    const jobMetrics = await metrics(stack.procs.get('job')!.url);
    expect(value(jobMetrics, 'baret_jobs{status="done"}')).toBeGreaterThanOrEqual(1);
    expect(value(jobMetrics, 'baret_jobs_finished_total{status="done"}')).toBeGreaterThanOrEqual(1);
    expect(value(jobMetrics, 'baret_job_stage_duration_seconds_count{stage="sampling"}')).toBeGreaterThanOrEqual(1);
    expect(value(jobMetrics, 'baret_upload_bytes_total{kind="multipart"}')).toBeGreaterThanOrEqual(video.length);
    const gatewayMetrics = await metrics(gateway);
    expect(value(gatewayMetrics, 'baret_http_request_duration_seconds_count{method="POST",route="/analyze",status_code="202"}')).toBeGreaterThanOrEqual(1);
    const workerMetrics = await metrics(stack.procs.get(worker)!.url);
    expect(value(workerMetrics, 'baret_queue_lag{group="analysis",topic="job-events"}')).toBeGreaterThanOrEqual(0);
    // Open like /healthz, but not part of the public API.
    expect((await call<{ paths: Record<string, unknown> }>('/openapi.json')).body.paths['/metrics']).toBeUndefined();
  }, 180_000);

  it('makes an admin with the operator command, on the identity service\'s own stores', async () => {
    const ops = await signUp('ops@example.com');
    expect((await call('/admin/usage', { token: ops.token })).status).toBe(403);
    const out = execFileSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'baret.mjs'), 'admin', 'promote', 'ops@example.com'], {
      env: { ...process.env, ...stack.env },
      encoding: 'utf8',
    });
    expect(out).toMatch(/ops@example.com is now an admin/);
    await waitUntil(async () => (await call('/admin/usage', { token: ops.token })).status === 200, 15_000, () => 'promotion not seen by the gateway');
  }, 60_000);

  it('two analysis workers share 6 jobs; a worker killed mid-job does not leave its job stuck', async () => {
    const admin = await signUp('admin@baret.test');
    await confirmEmail(stack.gateway, { env: stack.env }, admin.id); // an admin once confirmed (issue 37)
    const user = await signUp('big-crew@example.com');
    const unlimited = await call(`/admin/users/${user.id}/quota`, {
      method: 'PATCH',
      token: admin.token,
      body: JSON.stringify({ plan_name: 'enterprise', daily_limit: null, monthly_limit: null, lifetime_limit: null }),
    });
    expect(unlimited.status).toBe(200);

    // Jobs reach the workers by Kafka partition (the job id's hash): six are almost always shared,
    // and the test adds jobs (at most 20 in all) until both workers have had one.
    const ids: string[] = [];
    while (ids.length < 6) ids.push(await submit(user.token));
    const done: Job[] = [];
    for (const id of ids) done.push(await waitJob(user.token, id));
    while (new Set(ids.map(workerOf)).size < 2 && ids.length < 20) {
      const id = await submit(user.token);
      ids.push(id);
      done.push(await waitJob(user.token, id));
    }
    expect(done.map((j) => j.status)).toEqual(ids.map(() => 'done'));
    expect(new Set(ids.map(workerOf))).toEqual(new Set(['analysis', 'analysis-2']));

    // Now a job with more work; kill whichever worker takes it, with SIGKILL, mid-job.
    const slow = await submit(user.token, { target_composites: 8, frames_per_composite: 4 });
    let victim: StackProcess | undefined;
    await waitUntil(async () => (victim = workerOf(slow)) !== undefined, 180_000, () => `no worker received ${slow}`);
    await waitUntil(
      async () => (await call<Job>(`/jobs/${slow}`, { token: user.token })).body.logs.some((l) => l.event === 'frames_sampled'),
      180_000,
      () => `${slow} never started`,
    );
    await stop(victim!, 'SIGKILL');
    const survivor: StackProcess = victim === 'analysis' ? 'analysis-2' : 'analysis';
    const job = await waitJob(user.token, slow, 150_000);
    // Done by the survivor (the job resumes from the journal), or in error with its unit back: never stuck.
    console.info(`worker killed mid-job: the job ended ${job.status}${job.status === 'done' ? ` (resumed by ${survivor})` : ''}`);
    if (job.status === 'done') {
      expect(stack.procs.get(survivor)!.logs.some((l) => l.msg === 'job received' && l.job_id === slow)).toBe(true);
    } else {
      expect(job.status).toBe('error');
    }
    await waitUntil(async () => (await mediaKeys(`uploads/${slow}/`)).length === 0, 10_000, () => 'raw video of the killed job still in S3');
    await start(victim!);

    // The admin's usage page counts every job of this user.
    type Usage = { users: Array<{ user_id: string; email: string; job_count: number }> };
    const all = ids.length + 1;
    await waitUntil(
      async () => {
        const usage = await call<Usage>('/admin/usage', { token: admin.token });
        const row = usage.body.users.find((u) => u.user_id === user.id);
        return row?.job_count === all && row.email === 'big-crew@example.com';
      },
      20_000,
      () => 'admin usage does not count the jobs',
    );
    // An admin deletes a job: nothing is left under its prefix.
    expect((await mediaKeys(`jobs/${ids[0]}/`)).length).toBeGreaterThan(0);
    const del = await call(`/admin/jobs/${ids[0]}`, { method: 'DELETE', token: admin.token });
    expect(del.status).toBe(204);
    expect(await mediaKeys(`jobs/${ids[0]}/`)).toEqual([]);
    expect(await mediaKeys(`uploads/${ids[0]}/`)).toEqual([]);
  }, 600_000);

  it('a gateway restarted mid-poll loses nothing', async () => {
    const user = await signUp('night-shift@example.com');
    const jobId = await submit(user.token);
    const before = await call<Job>(`/jobs/${jobId}`, { token: user.token });
    expect(before.status).toBe(200);
    await stop('gateway', 'SIGKILL');
    expect(await fetch(`${gateway}/healthz`).then(() => 'up', () => 'down')).toBe('down');
    gateway = (await start('gateway')).url;
    // The same token still works (the new gateway checks it the same way), and the job finishes.
    const job = await waitJob(user.token, jobId);
    expect(job.status).toBe('done');
    const list = await call<{ items?: Array<{ job_id: string }> } | Array<{ job_id: string }>>('/jobs', { token: user.token });
    const items = Array.isArray(list.body) ? list.body : (list.body.items ?? []);
    expect(items.map((j) => j.job_id)).toContain(jobId);
  }, 180_000);

  it('20 submissions racing against a limit of 10 (three bursts): 10 accepted, and /auth/me and the admin table show what the stored events say', async () => {
    const admin = await signUp('race-admin@example.com');
    execFileSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'baret.mjs'), 'admin', 'promote', 'race-admin@example.com'], { env: { ...process.env, ...stack.env } });
    await waitUntil(async () => (await call('/admin/usage', { token: admin.token })).status === 200, 15_000, () => 'promotion not seen');
    const events = new pg.Client({ connectionString: stack.env.POSTGRES_URL });
    await events.connect();
    type Quota = { lifetime_used: number; can_analyze: boolean };
    try {
      for (let burst = 1; burst <= 3; burst++) {
        const user = await signUp(`race${burst}@example.com`);
        const limit = await call(`/admin/users/${user.id}/quota`, { method: 'PATCH', token: admin.token, body: JSON.stringify({ plan_name: 'pro', daily_limit: null, monthly_limit: null, lifetime_limit: 10 }) });
        expect(limit.status).toBe(200);
        const codes = await raceSubmissions(20, video, async (body) => {
          const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${user.token}`, 'x-forwarded-for': `10.27.${burst}.1` }, body: body.payload });
          await res.arrayBuffer();
          return res.status;
        });
        expect(codes.filter((c) => c === 202), JSON.stringify(codes)).toHaveLength(10);
        expect(codes.filter((c) => c === 403), JSON.stringify(codes)).toHaveLength(10);
        const stored = usedFromEvents(
          (await events.query<{ type: string; data: unknown }>('SELECT type, data FROM baret_quota.events WHERE stream_id = $1 ORDER BY revision', [`quota-${user.id}`])).rows,
        );
        expect(stored).toBe(10);
        // The read model is not eventually right but right: what the user and the admin see now.
        const me = await call<{ quota: Quota }>('/auth/me', { token: user.token });
        expect(me.body.quota).toMatchObject({ lifetime_used: stored, can_analyze: false });
        const rows = await call<Array<{ user_id: string; quota: Quota }>>('/admin/users/quotas', { token: admin.token });
        expect(rows.body.find((r) => r.user_id === user.id)?.quota).toMatchObject({ lifetime_used: stored, can_analyze: false });
      }
    } finally {
      await events.end();
    }
  }, 300_000);
});
