import { readFileSync } from 'node:fs';
import type { TestApp } from './app.js';

/** A multipart body as a browser or `curl -F` would send it. */
export async function multipart(fields: Record<string, string>, file?: { name: string; type: string; data: Buffer }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.data], { type: file.type }), file.name);
  const request = new Request('http://localhost/analyze', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

export async function submitVideo(app: TestApp, token: string, path: string | Buffer, params: Record<string, unknown> = {}, name = 'site-visit.mp4') {
  const body = await multipart(
    { payload: JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 2, frames_per_composite: 4, ...params }) },
    { name, type: 'video/mp4', data: typeof path === 'string' ? readFileSync(path) : path },
  );
  return app.request({ method: 'POST', url: '/analyze', token, ...body });
}

export interface JobDetail {
  job_id: string;
  status: string;
  error: string | null;
  model_used: string | null;
  estimated_cost: number | null;
  currency: string;
  input_filename: string;
  created_at: string;
  logs: Array<{ event: string; timestamp: string; data?: Record<string, unknown> }>;
  result: Record<string, unknown> | null;
}

/** Polls GET /jobs/{id} as the web app does, until the job reaches one of `statuses`. */
export async function waitForJob(app: TestApp, token: string, jobId: string, statuses = ['done', 'error', 'cancelled'], timeoutMs = 90_000, lang = 'en'): Promise<JobDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.request({ method: 'GET', url: `/jobs/${jobId}`, token, headers: { 'accept-language': lang } });
    const job = res.json() as JobDetail;
    if (statuses.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}: ${JSON.stringify(job.logs.map((l) => l.event))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
