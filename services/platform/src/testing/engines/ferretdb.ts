import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, restartable, spawnEngine, waitUntil, type EngineOptions, type EngineProcess, type RestartableEngine } from './common.js';
import { releasePort, reservePort } from './ports.js';

/** The FerretDB binary that scripts/engines/install-ferretdb.sh built, or null. */
export function ferretDbBinary(): string | null {
  const dir = enginesDir();
  if (!existsSync(dir)) return null;
  return readdirSync(dir).filter((d) => d.startsWith('ferretdb-')).map((d) => join(dir, d, 'ferretdb')).find((p) => existsSync(p)) ?? null;
}

export interface RunningFerretDb extends RestartableEngine {
  url: string;
}

/** A FerretDB (MongoDB wire protocol, SQLite backend) on a free loopback port, its data in a temp folder or `dataDir`. */
export async function startFerretDb(options: EngineOptions = {}): Promise<RunningFerretDb> {
  const bin = ferretDbBinary();
  if (!bin) throw new Error('FerretDB is not installed: run bash scripts/bootstrap.sh --test');
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'baret-ferretdb-'));
  mkdirSync(join(dir, 'data'), { recursive: true });
  // Reserved (below the ephemeral range, locked across processes): free again when FerretDB restarts.
  const port = await reservePort();
  const launch = async (spawned: (proc: EngineProcess) => void) => {
    const proc = spawnEngine(bin, ['-listen', `127.0.0.1:${port}`, '-dir', join(dir, 'data')]);
    spawned(proc);
    await waitUntil(
      () =>
        new Promise<boolean>((resolve) => {
          if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve(true);
          const socket = createConnection(port, '127.0.0.1', () => (socket.end(), resolve(true)));
          socket.on('error', () => resolve(false));
        }),
      60_000,
      () => `FerretDB did not start on port ${port}:\n${proc.log()}`,
    );
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`FerretDB exited at start on port ${port}:\n${proc.log()}`);
    return proc;
  };
  const engine = restartable(launch, () => {
    releasePort(port);
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
  });
  await engine.first.catch((e: unknown) => {
    releasePort(port);
    throw e;
  });
  return { url: `mongodb://127.0.0.1:${port}/`, pid: engine.pid, exited: engine.exited, kill: engine.kill, restart: engine.restart, stop: engine.stop };
}
