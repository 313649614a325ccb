import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, freePort, spawnEngine, waitUntil } from './common.js';

/** The MinIO server binary that scripts/engines/install-minio.sh built, or null. */
export function minioBinary(): string | null {
  const dir = enginesDir();
  if (!existsSync(dir)) return null;
  const found = readdirSync(dir).filter((d) => d.startsWith('minio-')).map((d) => join(dir, d, 'minio')).find((p) => existsSync(p));
  return found ?? null;
}

export interface RunningMinio {
  endPoint: string;
  accessKey: string;
  secretKey: string;
  stop(): Promise<void>;
}

/** A throw-away MinIO server on free loopback ports, its data in a fresh temp folder (removed by stop). */
export async function startMinio(): Promise<RunningMinio> {
  const bin = minioBinary();
  if (!bin) throw new Error('MinIO is not installed: run bash scripts/bootstrap.sh --test');
  const dir = mkdtempSync(join(tmpdir(), 'baret-minio-'));
  const [port, console] = [await freePort(), await freePort()];
  const accessKey = 'baret-test';
  const secretKey = 'baret-test-secret-key';
  const proc = spawnEngine(bin, ['server', join(dir, 'data'), '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${console}`, '--quiet'], {
    env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off' },
  });
  const endPoint = `http://127.0.0.1:${port}`;
  await waitUntil(async () => (await fetch(`${endPoint}/minio/health/ready`)).ok, 60_000, () => `MinIO did not start on port ${port}:\n${proc.log()}`);
  return {
    endPoint,
    accessKey,
    secretKey,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
