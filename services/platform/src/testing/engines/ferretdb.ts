import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, freePort, spawnEngine, waitUntil } from './common.js';

/** The FerretDB binary that scripts/engines/install-ferretdb.sh built, or null. */
export function ferretDbBinary(): string | null {
  const dir = enginesDir();
  if (!existsSync(dir)) return null;
  return readdirSync(dir).filter((d) => d.startsWith('ferretdb-')).map((d) => join(dir, d, 'ferretdb')).find((p) => existsSync(p)) ?? null;
}

/** A throw-away FerretDB (MongoDB wire protocol, SQLite backend) on a free loopback port. */
export async function startFerretDb(): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = ferretDbBinary();
  if (!bin) throw new Error('FerretDB is not installed: run bash scripts/bootstrap.sh --test');
  const dir = mkdtempSync(join(tmpdir(), 'baret-ferretdb-'));
  const port = await freePort();
  const proc = spawnEngine(bin, ['-listen', `127.0.0.1:${port}`, '-dir', join(dir, 'data')]);
  await waitUntil(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = createConnection(port, '127.0.0.1', () => (socket.end(), resolve(true)));
        socket.on('error', () => resolve(false));
      }),
    60_000,
    () => `FerretDB did not start on port ${port}:\n${proc.log()}`,
  );
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
