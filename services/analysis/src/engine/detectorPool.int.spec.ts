import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDataDir } from '@baret/platform';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { detectPersons } from './detector.js';
import { DetectorPool } from './detectorPool.js';

const photo = readFileSync(join(sharedDataDir('ppe-photos', 'safety-gear-test', 'images'), 'pexels-worldsikhorg-14797996.jpg'));
const pool = new DetectorPool(1);
afterAll(() => pool.close());

describe('DetectorPool', () => {
  it('detects in a worker thread exactly as in process, while the event loop keeps turning', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = pool.detect(photo);
    const inThread = await started;
    clearInterval(timer);
    // The detector ran for hundreds of ms (loading included) in the thread: the loop ticked meanwhile.
    expect(ticks).toBeGreaterThan(3);
    const inProcess = await detectPersons(photo);
    expect(inThread.persons.length).toBeGreaterThan(0);
    expect(inThread).toEqual(inProcess);
  }, 120_000);

  it('answers the cheap score mode as partial, and judges composite cells', async () => {
    const scored = await pool.detect(photo, { mode: 'score' });
    expect(scored.partial).toBe(true);
    expect(scored.persons.length).toBeLessThanOrEqual(1);
    const judged = await pool.judgeCells(photo, [{ frameIndex: 0, timeSec: 0, x: 0, y: 0, width: 200, height: 200 }, { frameIndex: 1, timeSec: 1, x: 0, y: 0, width: 4, height: 4 }]);
    expect(judged).toHaveLength(2);
    expect(judged[0]).toMatchObject({ width: 200, height: 200 });
    expect(judged[1]).toBeNull(); // too small to judge
  }, 120_000);

  it('runs the close-up pass in the thread when asked (ADR 0027), and only then', async () => {
    // A wide hat from behind filling the frame: no worker found at full size, one on the frame shrunk.
    const dir = sharedDataDir('ppe-training', 'hard-hat-or-headwear', 'images');
    const closeUp = await sharp(join(dir, readdirSync(dir).find((f) => f.startsWith('cash-macanaya-Oe7HQQWm9Z4'))!)).resize(416, 416, { fit: 'fill' }).jpeg().toBuffer();
    const cell = { frameIndex: 0, timeSec: 0, x: 0, y: 0, width: 416, height: 416 };
    expect((await pool.judgeCells(closeUp, [cell]))[0]!.persons).toEqual([]);
    expect((await pool.judgeCells(closeUp, [cell], { pass: 'closeUp' }))[0]!.persons).toHaveLength(1);
  }, 120_000);

  it('rejects calls after close', async () => {
    const p = new DetectorPool(1);
    await p.close();
    await expect(p.detect(photo)).rejects.toThrow(/closed/);
  });
});
