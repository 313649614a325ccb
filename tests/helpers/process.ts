import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface RunningBaret {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Every JSON log line the process has written so far. */
  logs: Array<Record<string, unknown>>;
  /** The last lines it wrote to stderr. */
  stderr(): string;
}

const repo = join(import.meta.dirname, '../..');

/**
 * Starts a Baret process and resolves once it logs the address it listens on. Its JSON log lines
 * are kept (and its output drained until it closes).
 */
export function spawnBaret(args: string[], env: Record<string, string>, onLine?: (line: string) => void): Promise<RunningBaret> {
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-10_000);
      onLine?.(c.toString());
    });
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        onLine?.(line);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // not a log line
        }
        logs.push(entry);
        if (typeof entry.address === 'string') resolve({ child, url: entry.address, exited, logs, stderr: () => stderr });
      }
    });
    void exited.then((code) => reject(new Error(`${args.join(' ')} exited with ${String(code)} before listening: ${stderr}`)));
  });
}

/** Starts `services/standalone/src/main.ts` in its own process, as `npm start` does. */
export function startBaret(env: Record<string, string>): Promise<RunningBaret> {
  return spawnBaret(['--import', 'tsx', join(repo, 'services/standalone/src/main.ts')], env);
}

/** Starts one compiled service of the distributed run (`node bin/baret.mjs <service>`; needs `npm run build:services`). */
export function startService(service: string, env: Record<string, string>, onLine?: (line: string) => void): Promise<RunningBaret> {
  return spawnBaret([join(repo, 'bin/baret.mjs'), service], env, onLine);
}

export async function api<T = unknown>(base: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.body && typeof init.body === 'string') headers.set('content-type', 'application/json');
  const res = await fetch(`${base}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
