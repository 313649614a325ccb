import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareScratchDir } from '@baret/platform';
import { afterEach, describe, expect, it } from 'vitest';

describe('scratch folder sweep', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scratch-sweep-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("removes what Baret left (baret-*) and nothing else, so BARET_SCRATCH_DIR=/tmp can't empty /tmp", () => {
    mkdirSync(join(dir, 'baret-job-abc'));
    writeFileSync(join(dir, 'baret-job-abc', 'video.mp4'), 'x');
    writeFileSync(join(dir, 'baret-upload-123'), 'partial');
    writeFileSync(join(dir, 'someone-elses.txt'), 'keep me');
    expect(prepareScratchDir(dir).sort()).toEqual(['baret-job-abc', 'baret-upload-123']);
    expect(existsSync(join(dir, 'someone-elses.txt'))).toBe(true);
    expect(existsSync(join(dir, 'baret-upload-123'))).toBe(false);
  });
});
