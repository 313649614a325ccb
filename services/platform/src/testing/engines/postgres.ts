import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { restartable, spawnEngine, waitUntil, type EngineOptions, type EngineProcess, type RestartableEngine } from './common.js';
import { releasePort, reservePort } from './ports.js';

/** The folder of PostgreSQL's server programs (Debian: /usr/lib/postgresql/<version>/bin), or null. */
export function postgresBinDir(): string | null {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : null;
}

export interface RunningPostgres extends RestartableEngine {
  url: string;
  version: string;
}

/**
 * A PostgreSQL server on a free loopback port, its data in a fresh temp folder (removed by stop)
 * or in `dataDir` (kept, and used again by the next start). PostgreSQL refuses to run as root, so
 * as root it runs as the `postgres` user that Debian's package creates.
 */
export async function startPostgres(options: EngineOptions = {}): Promise<RunningPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: run bash scripts/bootstrap.sh --test (apt-get install postgresql)');
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'baret-pg-'));
  mkdirSync(dir, { recursive: true });
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : null;
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const as = ids ? { uid: ids.uid, gid: ids.gid } : {};
  if (!existsSync(join(data, 'PG_VERSION'))) {
    execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], { ...as, stdio: 'pipe' });
  }
  // Reserved (below the ephemeral range, locked across processes): free again when PostgreSQL restarts.
  const port = await reservePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const launch = async (spawned: (proc: EngineProcess) => void) => {
    const proc = spawnEngine(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
      as,
    );
    spawned(proc);
    await waitUntil(
      async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null) return true;
        const c = new pg.Client({ connectionString: url });
        c.on('error', () => undefined);
        await c.connect();
        await c.end();
        return true;
      },
      60_000,
      () => `PostgreSQL did not start on port ${port}:\n${proc.log()}`,
    );
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`PostgreSQL exited at start on port ${port}:\n${proc.log()}`);
    return proc;
  };
  // SIGINT: PostgreSQL's fast shutdown.
  const engine = restartable(
    launch,
    () => {
      releasePort(port);
      if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
    },
    'SIGINT',
  );
  await engine.first.catch((e: unknown) => {
    releasePort(port);
    throw e;
  });
  const version = execFileSync(join(bin, 'postgres'), ['--version']).toString().trim();
  return { url, version, pid: engine.pid, exited: engine.exited, kill: engine.kill, restart: engine.restart, stop: engine.stop };
}
