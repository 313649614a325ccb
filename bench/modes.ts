/**
 * Embedded vs distributed, in the same run on the same machine: API requests per second through
 * the gateway (an authenticated GET /jobs, the route the web app polls), and the time from
 * POST /analyze to done for the two-minute 1080p bench video (bench/frames.ts) with the app's default
 * settings. The distributed run is every service its own process on the engines scripts/engines
 * installed (PostgreSQL, Kafka 4, FerretDB, MinIO), one analysis worker.
 *
 * Run alone with `npx tsx bench/modes.ts`, or through `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distributedEngines, startDistributedStack } from '../tests/helpers/distributed.js';
import { multipart } from '../tests/helpers/jobs.js';
import { api, startBaret } from '../tests/helpers/process.js';
import { ensureVideo, VIDEO } from './frames.js';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONCURRENCY = 16;

interface ModeFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  analysisSeconds: number;
  status: string;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function measure(base: string): Promise<ModeFigures> {
  const email = `bench-${Date.now()}@example.com`;
  await api(base, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  const { body } = await api<{ access_token: string }>(base, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  const token = body.access_token;

  // Throughput: CONCURRENCY clients polling GET /jobs for LOAD_SECONDS (bounded, loopback only).
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const t = performance.now();
        const res = await fetch(`${base}/jobs`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
        if (res) await res.arrayBuffer();
        if (res?.status === 200) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);

  // One analysis of the two-minute video, default settings, polled as the web app does.
  const form = await multipart({ payload: JSON.stringify({ job_type: 'auto' }) }, { name: 'bench-120s.mp4', type: 'video/mp4', data: readFileSync(VIDEO) });
  const t0 = performance.now();
  const res = await fetch(`${base}/analyze`, { method: 'POST', headers: { ...form.headers, authorization: `Bearer ${token}` }, body: form.payload });
  const { job_id: jobId } = (await res.json()) as { job_id: string };
  let status = 'queued';
  let error: string | null = null;
  while (!['done', 'error', 'cancelled'].includes(status) && performance.now() - t0 < 600_000) {
    await new Promise((r) => setTimeout(r, 200));
    ({ status, error } = (await api<{ status: string; error: string | null }>(base, `/jobs/${jobId}`, { token, headers: { 'accept-language': 'en' } })).body);
  }
  if (error) console.log(`the analysis ended in ${status}: ${error}`);
  return {
    rps: latencies.length / LOAD_SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    analysisSeconds: (performance.now() - t0) / 1000,
    status,
  };
}

const row = (name: string, f: ModeFigures) =>
  `| ${name} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${f.errors} | ${f.analysisSeconds.toFixed(1)} s (${f.status}) |`;

export async function runModesBench(): Promise<{ embedded: ModeFigures; distributed: ModeFigures | null }> {
  ensureVideo();
  console.log(`\n## Embedded vs distributed — GET /jobs through the gateway (${CONCURRENCY} clients, ${LOAD_SECONDS} s), and the 120 s 1080p video from POST /analyze to done`);
  const dir = mkdtempSync(join(tmpdir(), 'baret-bench-modes-'));
  let embedded: ModeFigures;
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, RATE_LIMIT_PER_MINUTE: '10000000' });
  try {
    embedded = await measure(baret.url);
  } finally {
    baret.child.kill('SIGTERM');
    await baret.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  let distributed: ModeFigures | null = null;
  const missing = Object.entries(distributedEngines()).filter(([, ok]) => !ok).map(([name]) => name);
  if (missing.length > 0) {
    console.log(`distributed: skipped, not installed: ${missing.join(', ')} (bash scripts/bootstrap.sh --test)`);
  } else {
    const stack = await startDistributedStack({ env: { RATE_LIMIT_PER_MINUTE: '10000000', WEB_DIST_DIR: tmpdir() } });
    try {
      distributed = await measure(stack.gateway);
    } finally {
      await stack.close();
    }
  }
  console.log('| mode | requests/s | p50 ms | p99 ms | errors | POST /analyze → done |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('embedded (one process)', embedded));
  if (distributed) {
    console.log(row('distributed (gateway → services, Kafka, PostgreSQL, FerretDB, MinIO)', distributed));
    console.log(`distributed / embedded: ${(distributed.rps / embedded.rps).toFixed(2)} × the requests per second, ${(distributed.analysisSeconds / embedded.analysisSeconds).toFixed(2)} × the analysis time`);
  }
  return { embedded, distributed };
}

if (import.meta.url === `file://${process.argv[1]}`) await runModesBench();
