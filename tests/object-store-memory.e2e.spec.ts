import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'baret-1gib-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('object store streaming', () => {
  it('streams a 1 GiB object in and out with peak RSS growth under 100 MiB', () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'fixtures/object-1gib.ts'), dir], {
      encoding: 'utf8',
      timeout: 170_000,
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as {
      size: number;
      read: number;
      same: boolean;
      peakGrowthMiB: number;
      seconds: number;
    };
    console.log(`1 GiB through the folder object store: ${result.seconds}s, peak RSS growth ${result.peakGrowthMiB.toFixed(1)} MiB`);
    expect(result.size).toBe(1024 ** 3);
    expect(result.read).toBe(1024 ** 3);
    expect(result.same).toBe(true);
    expect(result.peakGrowthMiB).toBeLessThan(100);
  }, 180_000);
});
