/**
 * Observability of the embedded run (docs/adr/0014): `/metrics` counting what the product did,
 * open and never rate limited, not in the OpenAPI document; traces off by default, and on (with
 * trace ids on the log lines) when OTEL_* names an exporter.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../services/analysis/test/fakeOpenAi.js';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';
import { startOtlpReceiver } from './helpers/otlp.js';
import { api, startBaret, type RunningBaret } from './helpers/process.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: Buffer;
let web: string;
beforeAll(async () => {
  fx = await videoFixtures();
  video = readFileSync((await fx.photos('site.mp4', 6)).path);
  web = join(fx.dir, 'web');
  mkdirSync(web);
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Baret</title>');
}, 60_000);
afterAll(async () => {
  await fx.dispose();
});

/** The value of one series of a Prometheus text exposition; NaN when absent. */
const value = (text: string, series: string): number => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? NaN);

describe('/metrics in the embedded run', () => {
  let app: TestApp;
  let fake: FakeOpenAi;
  beforeAll(async () => {
    // A vision model that answers with token usage, so tokens and cost are counted.
    fake = await startFakeOpenAi();
    app = await startTestApp(
      {
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test-key',
        OPENAI_MODEL: 'gpt-4o-mini',
      },
      { realClock: true },
    );
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('counts a finished job: by status, its stages, tokens, cost, upload bytes, HTTP latency by route, queue lag', async () => {
    const user = await app.signUp('metrics@example.com');
    const res = await submitVideo(app, user.token, video, { job_type: 'genel_saha_girisi', target_composites: 2, frames_per_composite: 2 });
    expect(res.statusCode).toBe(202);
    const job = await waitForJob(app, user.token, (res.json() as { job_id: string }).job_id);
    expect(job.status, job.error ?? '').toBe('done');

    // The job service counts the job just after its read model says done.
    const scrape = () => app.request({ method: 'GET', url: '/metrics' });
    await expect.poll(async () => value((await scrape()).body, 'baret_jobs_finished_total{status="done"}')).toBe(1);
    const metrics = await scrape();
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
    const text = metrics.body;
    expect(value(text, 'baret_jobs{status="done"}')).toBe(1);
    expect(value(text, 'baret_jobs{status="queued"}')).toBe(0);
    expect(value(text, 'baret_jobs_finished_total{status="done"}')).toBe(1);
    for (const stage of ['queue', 'probe', 'sampling', 'composites', 'model', 'total']) {
      expect(value(text, `baret_job_stage_duration_seconds_count{stage="${stage}"}`), stage).toBe(1);
    }
    expect(value(text, 'baret_job_stage_duration_seconds_sum{stage="total"}')).toBeGreaterThan(0);
    const tokens = job.result!.token_usage as { prompt_tokens: number; completion_tokens: number };
    expect(tokens.prompt_tokens).toBeGreaterThan(0);
    expect(value(text, 'baret_model_tokens_total{model="gpt-4o-mini",kind="prompt"}')).toBe(tokens.prompt_tokens);
    expect(value(text, 'baret_model_tokens_total{model="gpt-4o-mini",kind="completion"}')).toBe(tokens.completion_tokens);
    expect(value(text, `baret_model_cost_total{model="gpt-4o-mini",currency="${job.currency}"}`)).toBeCloseTo(job.estimated_cost!, 6);
    expect(value(text, 'baret_upload_bytes_total{kind="multipart"}')).toBe(video.length);
    expect(value(text, 'baret_http_request_duration_seconds_count{method="POST",route="/analyze",status_code="202"}')).toBe(1);
    expect(value(text, 'baret_http_request_duration_seconds_count{method="GET",route="/jobs/:id",status_code="200"}')).toBeGreaterThanOrEqual(1);
    // Consumer groups of the embedded bus: the worker's group catches up (the events appended as the
    // job ended reach it a moment later: on a loaded machine a scrape right after "done" saw 2 behind).
    await expect.poll(async () => value((await scrape()).body, 'baret_queue_lag{group="analysis",topic="job-events"}'), { timeout: 30_000 }).toBe(0);
    expect(text).toContain('process_resident_memory_bytes');
  }, 120_000);

  it('is open, never rate limited, and not part of the OpenAPI document', async () => {
    // 5 requests a minute is the limit here; a scraper asks as often as it likes, without a token.
    const limitedApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const get = (url: string) => Promise.all(Array.from({ length: 12 }, () => limitedApp.request({ method: 'GET', url, remoteAddress: '10.9.9.9' })));
      expect(new Set((await get('/metrics')).map((a) => a.statusCode))).toEqual(new Set([200]));
      expect((await get('/tasks')).some((a) => a.statusCode === 429)).toBe(true);
    } finally {
      await limitedApp.close();
    }
    const openapi = (await app.request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(openapi.paths['/metrics']).toBeUndefined();
    expect(openapi.paths['/healthz']).toBeDefined();
  });
});

describe('traces in the embedded run (npm start)', () => {
  const procs: RunningBaret[] = [];
  afterAll(async () => {
    for (const p of procs) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
  const requestLines = (p: RunningBaret) => p.logs.filter((l) => l.msg === 'request completed');

  it('are off by default: no exporter, no trace ids on the log lines; /metrics answers', async () => {
    const p = await startBaret({ BARET_DATA_DIR: join(fx.dir, 'plain'), WEB_DIST_DIR: web, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' });
    procs.push(p);
    expect((await api(p.url, '/healthz')).status).toBe(200);
    const metrics = await fetch(`${p.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('baret_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/healthz",status_code="200"}');
    await expect.poll(() => requestLines(p).length).toBeGreaterThan(0);
    expect(p.logs.some((l) => 'trace_id' in l)).toBe(false);
  }, 60_000);

  it('are exported when OTEL_EXPORTER_OTLP_ENDPOINT is set, as baret-embedded, with the trace id on the request log line', async () => {
    const otlp = await startOtlpReceiver();
    try {
      const p = await startBaret({
        BARET_DATA_DIR: join(fx.dir, 'traced'),
        WEB_DIST_DIR: web,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      procs.push(p);
      const res = await fetch(`${p.url}/tasks`, { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id');
      // The caller's trace continues: its id on the log line and on the exported server span.
      await expect.poll(() => requestLines(p).find((l) => l.request_id === id)?.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
      await expect.poll(() => otlp.spans.find((s) => s.name === 'GET /tasks'), { timeout: 10_000 }).toMatchObject({
        service: 'baret-embedded',
        traceId: '0af7651916cd43dd8448eb211c80319c',
        parentSpanId: 'b7ad6b7169203331',
        attributes: { 'http.route': '/tasks', 'http.response.status_code': 200 },
      });
      // Probes and scrapes are not traced.
      await api(p.url, '/healthz');
      await new Promise((r) => setTimeout(r, 500));
      expect(otlp.spans.some((s) => s.name.includes('/healthz'))).toBe(false);
    } finally {
      await otlp.close();
    }
  }, 60_000);
});
