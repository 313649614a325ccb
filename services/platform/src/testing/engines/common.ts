import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where scripts/engines installs the engines: BARET_ENGINES_DIR, or ~/.cache/baret-engines. */
export const enginesDir = (): string => process.env.BARET_ENGINES_DIR ?? join(homedir(), '.cache', 'baret-engines');

/**
 * Whether a suite that needs an engine that is not installed should fail rather than be skipped:
 * in CI (CI=true) and with BARET_REQUIRE_ENGINES=1 a missing engine is an error, never a silent skip.
 */
export const enginesRequired = (): boolean => process.env.CI === 'true' || process.env.BARET_REQUIRE_ENGINES === '1';

/** A TCP port on 127.0.0.1 that is free now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it resolves true, or throws `describe()` after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A child process whose output is kept (the tail goes into error messages) and which dies with the test process. */
export interface EngineProcess {
  child: ChildProcess;
  log(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<ChildProcess>();
let hooked = false;

export function spawnEngine(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number } = {}): EngineProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  running.add(child);
  child.on('exit', () => running.delete(child));
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  return {
    child,
    log: () => output.split('\n').slice(-30).join('\n'),
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill(signal);
      }),
  };
}

/**
 * Whether a suite's engine is there. When it is not: in CI (or BARET_REQUIRE_ENGINES=1) that is an
 * error — CI must never skip silently — and elsewhere one line says the suite is skipped and why.
 */
export function engineInstalled(suite: string, installed: boolean, engine: string): boolean {
  if (installed) return true;
  if (enginesRequired()) throw new Error(`${engine} is not installed, and CI requires every engine: run bash scripts/bootstrap.sh --test`);
  console.warn(`SKIPPED: ${suite} — ${engine} is not installed (bash scripts/bootstrap.sh --test installs it)`);
  return false;
}
