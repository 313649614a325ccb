/**
 * What the smoke runs share (`npm run compose:smoke`, `npm run k8s:smoke`): phases with their times,
 * calls to the gateway, and the test clip.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// ---- phases and their times ----------------------------------------------------------------------
export interface Timing {
  phase: string;
  seconds: number;
  note?: string;
}
export function phases(label: string) {
  const timings: Timing[] = [];
  const started = Date.now();
  const say = (text: string) => void process.stdout.write(`[${label} ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);
  async function phase<T>(name: string, work: () => Promise<T> | T, note?: () => string | undefined): Promise<T> {
    say(`${name}…`);
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      timings.push({ phase: name, seconds: (Date.now() - t0) / 1000, note: note?.() });
    }
  }
  function printTimings(outcome: string, more: Timing[] = []): void {
    const all = [...more, ...timings];
    const width = Math.max(...all.map((t) => t.phase.length));
    const rows = all.map((t) => `  ${t.phase.padEnd(width)} ${t.seconds.toFixed(1).padStart(7)} s${t.note ? `  (${t.note})` : ''}`);
    process.stdout.write(`\n${label} ${outcome} in ${((Date.now() - started) / 1000).toFixed(1)} s\n${rows.join('\n')}\n`);
  }
  return { timings, say, phase, printTimings };
}

// ---- the gateway ---------------------------------------------------------------------------------
export interface Job {
  job_id: string;
  status: string;
  error: string | null;
  result: Record<string, unknown> | null;
  logs: Array<{ event: string }>;
}
export async function api<T>(gateway: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(`${gateway}${path}`, { ...init, headers, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: kept as text for the message */
  }
  return { status: res.status, body: body as T };
}
export function expect(ok: boolean, what: string, detail: unknown): void {
  if (!ok) throw new Error(`${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
}
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A test-pattern clip of `seconds` (4 by default; H.264, 320×240, 10 fps), made by ffmpeg. */
export function makeClip(dir: string, seconds = 4): Buffer {
  const path = join(dir, `clip-${seconds}s.mp4`);
  execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-t', String(seconds), '-c:v', 'libx264', '-pix_fmt', 'yuv420p', path]);
  return readFileSync(path);
}
