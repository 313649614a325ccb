import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, restartable, spawnEngine, waitUntil, type EngineOptions, type EngineProcess, type RestartableEngine } from './common.js';
import { releasePort, reservePort } from './ports.js';

/** The MinIO server binary that scripts/engines/install-minio.sh built, or null. */
export function minioBinary(): string | null {
  const dir = enginesDir();
  if (!existsSync(dir)) return null;
  const found = readdirSync(dir).filter((d) => d.startsWith('minio-')).map((d) => join(dir, d, 'minio')).find((p) => existsSync(p));
  return found ?? null;
}

export interface RunningMinio extends RestartableEngine {
  endPoint: string;
  accessKey: string;
  secretKey: string;
}

/** A MinIO server on free loopback ports, its data in a fresh temp folder (removed by stop) or in `dataDir` (kept). */
export async function startMinio(options: EngineOptions = {}): Promise<RunningMinio> {
  const bin = minioBinary();
  if (!bin) throw new Error('MinIO is not installed: run bash scripts/bootstrap.sh --test');
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'baret-minio-'));
  mkdirSync(join(dir, 'data'), { recursive: true });
  // Reserved (below the ephemeral range, locked across processes): free again when MinIO restarts.
  const [port, console] = [await reservePort(), await reservePort()];
  const accessKey = 'baret-test';
  const secretKey = 'baret-test-secret-key';
  const endPoint = `http://127.0.0.1:${port}`;
  const launch = async (spawned: (proc: EngineProcess) => void) => {
    const proc = spawnEngine(bin, ['server', join(dir, 'data'), '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${console}`, '--quiet'], {
      env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off' },
    });
    spawned(proc);
    await waitUntil(
      async () => proc.child.exitCode !== null || proc.child.signalCode !== null || (await fetch(`${endPoint}/minio/health/ready`)).ok,
      60_000,
      () => `MinIO did not start on port ${port}:\n${proc.log()}`,
    );
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`MinIO exited at start on port ${port}:\n${proc.log()}`);
    return proc;
  };
  const release = () => [port, console].forEach(releasePort);
  const engine = restartable(launch, () => {
    release();
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
  });
  await engine.first.catch((e: unknown) => {
    release();
    throw e;
  });
  return { endPoint, accessKey, secretKey, pid: engine.pid, exited: engine.exited, kill: engine.kill, restart: engine.restart, stop: engine.stop };
}
