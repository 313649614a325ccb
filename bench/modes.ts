/**
 * Embedded vs distributed, in the same run on the same machine: API requests per second through
 * the gateway (an authenticated GET /jobs, the route the web app polls; with a login token, then with
 * an API key; the ratios against the issue 27 targets), and the time from
 * POST /analyze to done for the two-minute 1080p bench video (bench/frames.ts) with the app's default
 * settings. The distributed run is every service its own process on the engines scripts/engines
 * installed (PostgreSQL, Kafka 4, FerretDB, MinIO), one analysis worker.
 *
 * Run alone with `npx tsx bench/modes.ts`, or through `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { distributedEngines, startDistributedStack } from '../tests/helpers/distributed.js';
import { multipart } from '../tests/helpers/jobs.js';
import { api, startBaret } from '../tests/helpers/process.js';
import { ensureVideo, VIDEO } from './frames.js';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONCURRENCY = 16;
/** Unmeasured load first, in both modes: JIT, pools and caches warm, and the processes done starting (an analysis worker loads its models for seconds after it listens). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);

/** BENCH_MODES_ANALYSIS=0: the request rates only, without the two-minute video. */
const WITH_ANALYSIS = process.env.BENCH_MODES_ANALYSIS !== '0';

interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time each process of the run spent per answered request (ms), the bench's own client included: what limits the rate on a quiet machine, whatever the load. */
  cpuMsPerRequest: Record<string, number>;
  /** The machine's 1-minute load average when the measurement ended. */
  load: number;
}

/** CPU time (user + system, ms) a process has used so far, from /proc; null where there is no /proc. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15), in clock ticks of 10 ms on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The processes whose CPU time a measurement counts (name → pid). */
type Processes = () => Record<string, number | undefined>;

interface ModeFigures {
  /** Signed in with the access token of /auth/login. */
  token: LoadFigures;
  /** The same requests with an API key. */
  apiKey: LoadFigures;
  analysisSeconds: number;
  status: string;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** CONCURRENCY clients polling GET /jobs for LOAD_SECONDS with one credential (bounded, loopback only). */
async function load(base: string, credential: string, processes: Processes, seconds = LOAD_SECONDS): Promise<LoadFigures> {
  const latencies: number[] = [];
  let errors = 0;
  const before = Object.entries(processes()).map(([name, pid]) => [name, pid, pid === undefined ? null : cpuMs(pid)] as const);
  const client = process.cpuUsage();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const t = performance.now();
        const res = await fetch(`${base}/jobs`, { headers: { authorization: `Bearer ${credential}` } }).catch(() => null);
        if (res) await res.arrayBuffer();
        if (res?.status === 200) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const cpuMsPerRequest: Record<string, number> = {};
  const answered = Math.max(1, latencies.length + errors);
  for (const [name, pid, was] of before) {
    const now = pid === undefined ? null : cpuMs(pid);
    if (was !== null && now !== null) cpuMsPerRequest[name] = (now - was) / answered;
  }
  const used = process.cpuUsage(client);
  cpuMsPerRequest['bench client'] = (used.user + used.system) / 1000 / answered;
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpuMsPerRequest, load: loadavg()[0]! };
}

async function measure(base: string, processes: Processes): Promise<ModeFigures> {
  const email = `bench-${Date.now()}@example.com`;
  await api(base, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  const { body } = await api<{ access_token: string }>(base, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'password 123' }) });
  const token = body.access_token;
  const key = (await api<{ token: string }>(base, '/auth/tokens', { method: 'POST', token, body: JSON.stringify({ name: 'bench' }) })).body.token;
  // Ready (every service's stores answer), then an unmeasured run: both modes are measured warm.
  while ((await fetch(`${base}/readyz`).catch(() => null))?.status !== 200) await new Promise((r) => setTimeout(r, 500));
  await load(base, token, processes, WARMUP_SECONDS);
  const figures = { token: await load(base, token, processes), apiKey: await load(base, key, processes) };
  if (!WITH_ANALYSIS) return { ...figures, analysisSeconds: Number.NaN, status: 'skipped' };

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
  return { ...figures, analysisSeconds: (performance.now() - t0) / 1000, status };
}

const row = (name: string, f: ModeFigures) =>
  (['token', 'apiKey'] as const)
    .map(
      (how) =>
        `| ${name}, ${how === 'token' ? 'login token' : 'API key'} | ${f[how].rps.toFixed(0)} | ${f[how].p50.toFixed(1)} | ${f[how].p99.toFixed(1)} | ${f[how].errors} | ${f[how].load.toFixed(1)} | ${cpuText(f[how])} | ${
          how === 'token' ? (WITH_ANALYSIS ? `${f.analysisSeconds.toFixed(1)} s (${f.status})` : 'not run') : ''
        } |`,
    )
    .join('\n');

/** "2.10 ms (gateway 0.61, job 0.52, …)": CPU time per request, all processes and by process, the busiest first. */
function cpuText(f: LoadFigures): string {
  const entries = Object.entries(f.cpuMsPerRequest).filter(([, ms]) => ms >= 0.005).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, ms]) => sum + ms, 0);
  return `${total.toFixed(2)} (${entries.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')})`;
}

/** Distributed against embedded, with the issue 27 targets: at least 0.5 × the requests per second, p99 at most 2 ×. */
function ratios(embedded: ModeFigures, distributed: ModeFigures): string[] {
  return (['token', 'apiKey'] as const).map((how) => {
    const rps = distributed[how].rps / embedded[how].rps;
    const p99 = distributed[how].p99 / embedded[how].p99;
    const met = rps >= 0.5 && p99 <= 2 ? 'target met' : 'target NOT met';
    return `distributed / embedded, ${how === 'token' ? 'login token' : 'API key'}: ${rps.toFixed(2)} × the requests per second, ${p99.toFixed(2)} × the p99 (target ≥ 0.5 ×, ≤ 2 ×: ${met})`;
  });
}

export async function runModesBench(): Promise<{ embedded: ModeFigures; distributed: ModeFigures | null }> {
  ensureVideo();
  console.log(`\n## Embedded vs distributed — GET /jobs through the gateway (${CONCURRENCY} clients, ${LOAD_SECONDS} s), and the 120 s 1080p video from POST /analyze to done`);
  const dir = mkdtempSync(join(tmpdir(), 'baret-bench-modes-'));
  let embedded: ModeFigures;
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, RATE_LIMIT_PER_MINUTE: '10000000' });
  try {
    embedded = await measure(baret.url, () => ({ baret: baret.child.pid }));
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
      distributed = await measure(stack.gateway, () => ({
        ...Object.fromEntries([...stack.procs].map(([name, p]) => [name, p.child.pid])),
        ...Object.fromEntries(stack.engineInfo.map((e) => [e.name, e.pid()])),
      }));
    } finally {
      await stack.close();
    }
  }
  console.log('| mode | requests/s | p50 ms | p99 ms | errors | load average | CPU ms per request (by process) | POST /analyze → done |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(row('embedded (one process)', embedded));
  if (distributed) {
    console.log(row('distributed (gateway → services, Kafka, PostgreSQL, FerretDB, MinIO)', distributed));
    for (const line of ratios(embedded, distributed)) console.log(line);
    if (WITH_ANALYSIS) console.log(`distributed / embedded: ${(distributed.analysisSeconds / embedded.analysisSeconds).toFixed(2)} × the analysis time`);
  }
  return { embedded, distributed };
}

if (import.meta.url === `file://${process.argv[1]}`) await runModesBench();
