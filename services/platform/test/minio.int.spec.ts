import { S3ObjectStore } from '@baret/platform';
import { engineInstalled, minioBinary, objectStoreContract, startMinio, type RunningMinio } from '@baret/platform/testing';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const installed = engineInstalled('S3 object store contract', minioBinary() !== null, 'MinIO');

let server: RunningMinio;
let n = 0;
beforeAll(async () => {
  if (installed) server = await startMinio();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const connect = (prefix: string, bucket = 'baret-contract') =>
  S3ObjectStore.connect({ endPoint: server.endPoint, accessKey: server.accessKey, secretKey: server.secretKey, bucket, prefix });

describe.skipIf(!installed)('MinIO', () => {
  objectStoreContract('S3 (MinIO)', async () => {
    const store = await connect(`run-${++n}`);
    return { store, dispose: () => store.close() };
  });

  it('keeps each service under its own prefix of one bucket, created at start', async () => {
    const job = await connect('job', 'baret-shared');
    const analysis = await connect('analysis', 'baret-shared');
    await job.put('uploads/1/video', Buffer.from('video'));
    expect(await analysis.head('uploads/1/video')).toBeNull();
    expect(await job.list('uploads/')).toEqual(['uploads/1/video']);
    await expect(connect('x', 'baret-shared')).resolves.toBeDefined(); // the bucket exists: no error
  });

  it('streams a 1 GiB object in and out of MinIO with peak RSS growth under 100 MiB', () => {
    const options = { endPoint: server.endPoint, accessKey: server.accessKey, secretKey: server.secretKey, bucket: 'baret-big' };
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, '../../../tests/fixtures/object-1gib.ts'), '-'], {
      encoding: 'utf8',
      timeout: 400_000,
      env: { ...process.env, BARET_TEST_S3: JSON.stringify(options) },
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { size: number; read: number; same: boolean; peakGrowthMiB: number; seconds: number };
    console.log(`1 GiB through S3 (MinIO): ${result.seconds}s, peak RSS growth ${result.peakGrowthMiB.toFixed(1)} MiB`);
    expect(result.size).toBe(1024 ** 3);
    expect(result.read).toBe(1024 ** 3);
    expect(result.same).toBe(true);
    expect(result.peakGrowthMiB).toBeLessThan(100);
  }, 420_000);
});
