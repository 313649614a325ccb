/**
 * Issue 29: how long after a job is done its webhook arrives. A real Baret process (embedded, as
 * `npm start` runs it, offline analyzer) analyses 20 short videos of one API user with a webhook on
 * a loopback receiver (NOTIFY_ALLOW_PRIVATE_HOSTS=true); for each job, the delay is from its
 * `job_completed` timestamp (the job's timeline) to the moment the receiver has the signed POST.
 * The path measured: event store → relay → bus → notification consumer → delivery → HTTP.
 *
 * Run alone with `npx tsx bench/notify.ts`, or through `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startReceiver } from '../tests/helpers/notify.js';
import { api, startBaret, unlimitedAdmin } from '../tests/helpers/process.js';

const JOBS = 20;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function runNotifyBench(): Promise<{ p50: number; p99: number; max: number }> {
  console.log(`\n## Job done → webhook received (issue 29) — ${JOBS} jobs, a real Baret process, webhook on a loopback receiver`);
  const fx = await videoFixtures();
  const dir = mkdtempSync(join(tmpdir(), 'baret-bench-notify-'));
  const receiver = await startReceiver([200]);
  const arrived = new Map<string, number>();
  receiver.onRequest = (r) => {
    const body = JSON.parse(r.body.toString()) as { data: { job_id: string } };
    arrived.set(body.data.job_id, Date.now());
  };
  const email = 'bench-hooks@example.com';
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, LOG_LEVEL: 'info', BARET_ADMIN_EMAILS: email, NOTIFY_ALLOW_PRIVATE_HOSTS: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  try {
    const video = readFileSync(await fx.testsrc('bench-notify.mp4', { seconds: 2, size: '320x240' }));
    const token = await unlimitedAdmin(baret.url, dir, email);
    const hook = await api(baret.url, '/webhooks', { method: 'POST', token, body: JSON.stringify({ url: receiver.url, events: ['job.completed'] }) });
    if (hook.status !== 201) throw new Error(`POST /webhooks answered ${hook.status}`);

    const delays: number[] = [];
    // One job at a time, as an API user's script would send them: the delay is not a queue's.
    for (let i = 0; i < JOBS; i++) {
      const form = new FormData();
      form.append('payload', JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }));
      form.append('file', new Blob([video], { type: 'video/mp4' }), `bench-${i}.mp4`);
      const res = await fetch(`${baret.url}/analyze`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      if (res.status !== 202) throw new Error(`POST /analyze answered ${res.status}: ${await res.text()}`);
      const { job_id } = (await res.json()) as { job_id: string };
      let done: string | undefined;
      for (;;) {
        const { body } = await api<{ status: string; logs: Array<{ event: string; timestamp: string }> }>(baret.url, `/jobs/${job_id}`, { token });
        done = body.logs.find((l) => l.event === 'job_completed')?.timestamp;
        if (done || ['error', 'cancelled'].includes(body.status)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (!done) throw new Error(`job ${job_id} did not complete`);
      while (!arrived.has(job_id)) await new Promise((r) => setTimeout(r, 5));
      delays.push(arrived.get(job_id)! - Date.parse(done));
    }
    const sorted = [...delays].sort((a, b) => a - b);
    const figures = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
    console.log('| jobs | p50 | p99 | max |');
    console.log('|---:|---:|---:|---:|');
    console.log(`| ${JOBS} | ${figures.p50} ms | ${figures.p99} ms | ${figures.max} ms |`);
    console.log(`Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 cores, shared).`);
    return figures;
  } finally {
    baret.child.kill('SIGTERM');
    await baret.exited;
    await receiver.close();
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runNotifyBench();
