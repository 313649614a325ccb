import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sharedDataDir, repoRoot } from '@baret/platform';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = path.join(repoRoot(), 'node_modules', '.bin', 'tsx');
const photos = sharedDataDir('ppe-photos', 'safety-vest-v4');

describe('npm run eval (scripts/eval.ts)', () => {
  it('measures a few labelled photos and ends with one JSON line on stdout', async () => {
    const { stdout, stderr } = await run(
      tsx,
      ['scripts/eval.ts', '--images', path.join(photos, 'images'), '--labels', path.join(photos, 'labels'), '--helmet', '0', '--bare-head', '2', '--vest', '1', '--no-vest', '3', '--limit', '4'],
      { cwd: repoRoot(), maxBuffer: 10 * 1024 * 1024 },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!) as { measures: Record<string, { precision: number | null; recall: number | null; tp: number; fp: number; fn: number }>; images: number; ms_per_image: number };
    expect(out.images).toBe(4);
    expect(Object.keys(out.measures)).toEqual(['hard hat worn', 'hard hat not worn', 'hi-vis worn', 'hi-vis not worn']);
    expect(out.ms_per_image).toBeGreaterThan(0);
    // Every image counts at most once per measure.
    for (const m of Object.values(out.measures)) expect(m.tp + m.fp + m.fn).toBeLessThanOrEqual(4);
    // The first four photos all show a hard hat (labels); the analyzer must find some of them.
    expect(out.measures['hard hat worn']!.tp).toBeGreaterThan(0);
    expect(stderr).toContain('4/4');
    expect(stderr).toContain('precision');
    // The per-worker table of the verdicts that raise violations.
    expect(stderr).toMatch(/no hard hat\s+\d+\s+\d+/);
    expect(stderr).toMatch(/no hi-vis\s+\d+\s+\d+/);
  }, 180_000);

  it('leaves out measures whose classes were not named and refuses bad arguments', async () => {
    const { stdout } = await run(tsx, ['scripts/eval.ts', '--images', path.join(photos, 'images'), '--labels', path.join(photos, 'labels'), '--vest', '1', '--limit', '1'], {
      cwd: repoRoot(),
    });
    expect(Object.keys((JSON.parse(stdout) as { measures: object }).measures)).toEqual(['hi-vis worn']);
    await expect(run(tsx, ['scripts/eval.ts', '--images', path.join(photos, 'images'), '--labels', path.join(photos, 'labels'), '--helmet', 'x'], { cwd: repoRoot() })).rejects.toMatchObject({ code: 2 });
  }, 120_000);
});
