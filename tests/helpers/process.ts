import { join } from 'node:path';

import { spawnBaret, type RunningBaret } from '../../scripts/stack.js';
import { confirmAccount } from './confirmEmail.js';

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

/**
 * Registers `email` on a Baret process whose data lives in `dataDir` and whose BARET_ADMIN_EMAILS
 * names it, confirms it (an admin once confirmed, issue 37), logs in, and lifts its own quota
 * (`quota`: the PATCH body, no lifetime limit by default) so benches and evaluations can run as
 * many jobs as they need. Returns the admin's access token.
 */
export async function unlimitedAdmin(base: string, dataDir: string, email: string, quota: Record<string, unknown> = { lifetime_limit: null }): Promise<string> {
  const password = 'password 123';
  await api(base, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password }) });
  await confirmAccount(base, { dataDir }, email, password);
  const token = (await api<{ access_token: string }>(base, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) })).body.access_token;
  const me = await api<{ id: string }>(base, '/auth/me', { token });
  await api(base, `/admin/users/${me.body.id}/quota`, { method: 'PATCH', token, body: JSON.stringify(quota) });
  return token;
}
