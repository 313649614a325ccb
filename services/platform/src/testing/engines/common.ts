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
  /**
   * Whether the process has printed `marker` (one of the `markers` it was spawned with) at any time.
   * `log()` holds only the tail: a server that prints dozens of lines right after its "started" line
   * (Kafka loading its partitions as the clients come back) pushes that line out of the tail before
   * a poll sees it.
   */
  printed(marker: string): boolean;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<ChildProcess>();
let hooked = false;

export function spawnEngine(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number; markers?: string[] } = {},
): EngineProcess {
  const { markers = [], ...spawnOptions } = options;
  const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const seen = new Set<string>();
  // The end of the previous chunk, so a marker split across two chunks is still seen.
  let carry = '';
  const keep = (c: Buffer) => {
    const text = c.toString();
    const scan = carry + text;
    for (const marker of markers) if (!seen.has(marker) && scan.includes(marker)) seen.add(marker);
    carry = scan.slice(-200);
    output = (output + text).slice(-20_000);
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
    printed: (marker) => seen.has(marker),
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

/** Where an engine keeps its data: a fresh temporary folder (removed at stop), or a given one (kept). */
export interface EngineOptions {
  /** Keep the data here, across stops and starts (`npm run distributed -- --data DIR`). */
  dataDir?: string;
}

/**
 * An engine that can be killed and started again on the same ports with the same data: what an
 * operator's supervisor (or Kubernetes) does, and what the fault tests do.
 */
export interface RestartableEngine {
  /** The running server's process id (undefined while it is down). */
  pid(): number | undefined;
  /** Resolves when the current server process ends, however it ends. */
  exited(): Promise<void>;
  /** Sends a signal to the server (SIGKILL: the crash the fault tests make). */
  kill(signal?: NodeJS.Signals): void;
  /** Starts the server again (after it died) on the same ports, with the same data; resolves when it answers. */
  restart(): Promise<void>;
  /** Stops the server for good; removes its data unless it was given a data folder. */
  stop(): Promise<void>;
}

/**
 * The restart machinery around one `launch` (start a server process and wait until it answers).
 * `launch` hands the process it spawned to `spawned` at once, so a kill reaches a server that is
 * still starting, not only one that answers.
 *
 * One server process at a time, whatever the callers do: restarts are serialised (a second
 * `restart()` while one runs waits for it and starts nothing if the server is up by then), and a
 * `kill()` while a restart is under way ends the starting process and that restart (it fails, it
 * does not try again). Two servers on one data folder can corrupt it: a combined Kafka node opens
 * and recovers its KRaft metadata log without locking the folder (its log manager locks it later),
 * so a second broker started beside a first may truncate the file under it. CI once saw a broker
 * that could not start again after a SIGKILL ("CorruptRecordException: Unexpected EOF … log
 * header" on __cluster_metadata); a restart overlapping another is the one way this runner could
 * have made two brokers, and it can no longer.
 */
export function restartable(
  launch: (spawned: (proc: EngineProcess) => void) => Promise<EngineProcess>,
  cleanup: () => void,
  stopSignal: NodeJS.Signals = 'SIGTERM',
): RestartableEngine & { first: Promise<void> } {
  /** The newest server process: the one answering, or the one starting. */
  let proc: EngineProcess | null = null;
  let stopped = false;
  /** Bumped by every kill and stop: a start under way whose generation is gone gives up. */
  let generation = 0;
  let restarting: Promise<void> | null = null;
  const alive = (p: EngineProcess | null) => !!p && p.child.exitCode === null && p.child.signalCode === null;
  // A server killed with SIGKILL may leave children or a lock behind for a moment: try a few times.
  const start = async () => {
    const mine = generation;
    for (let attempt = 1; ; attempt++) {
      try {
        proc = await launch((p) => {
          proc = p;
        });
        if (mine !== generation) throw new Error('the engine was killed while it started');
        return;
      } catch (e) {
        if (attempt >= 5 || stopped || mine !== generation) throw e;
        await new Promise((r) => setTimeout(r, 1000 * attempt));
        if (stopped || mine !== generation) throw e;
      }
    }
  };
  const first = start();
  return {
    first,
    pid: () => (restarting === null && alive(proc) ? proc!.child.pid : undefined),
    exited: () =>
      new Promise<void>((resolve) => {
        const child = proc?.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
      }),
    kill: (signal = 'SIGKILL') => {
      generation++;
      proc?.child.kill(signal);
    },
    restart: async () => {
      if (stopped) throw new Error('the engine was stopped for good');
      while (restarting) {
        await restarting.catch(() => undefined);
        if (restarting === null && alive(proc)) return;
      }
      const run = (async () => {
        await proc?.stop('SIGKILL');
        await start();
      })();
      restarting = run;
      try {
        await run;
      } finally {
        restarting = null;
      }
    },
    stop: async () => {
      stopped = true;
      generation++;
      await restarting?.catch(() => undefined);
      await proc?.stop(stopSignal);
      cleanup();
    },
  };
}
