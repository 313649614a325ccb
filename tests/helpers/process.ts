import { join } from 'node:path';

import { spawnBaret, type RunningBaret } from '../../scripts/stack.js';

export { spawnBaret, startService, type RunningBaret } from '../../scripts/stack.js';

const repo = join(import.meta.dirname, '../..');

/** Starts `services/standalone/src/main.ts` in its own process, as `npm start` does. */
export function startBaret(env: Record<string, string>): Promise<RunningBaret> {
  return spawnBaret(['--import', 'tsx', join(repo, 'services/standalone/src/main.ts')], env);
}

export async function api<T = unknown>(base: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.body && typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(`${base}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
