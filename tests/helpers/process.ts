import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface RunningBaret {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts `services/standalone/src/main.ts` in its own process, as `npm start` does. */
export function startBaret(env: Record<string, string>): Promise<RunningBaret> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../services/standalone/src/main.ts')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as { address?: string };
          if (typeof entry.address === 'string') resolve({ child, url: entry.address, exited });
        } catch {
          /* not a log line */
        }
      }
    });
    void exited.then((code) => reject(new Error(`Baret exited with ${String(code)} before listening: ${stderr}`)));
  });
}

export async function api<T = unknown>(base: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.body && typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(`${base}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
