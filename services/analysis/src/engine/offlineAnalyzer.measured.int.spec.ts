import { describe, expect, it } from 'vitest';
import { measureAnalyzer } from '../../../../bench/analyzer.js';

/**
 * Regression floor on the labelled photographs (safety-vest-v4, 90 images), through the same path
 * as `npm run bench`. Measured when written: "hard hat seen" precision 94% (60/64), recall 88%;
 * "bare head seen" precision 83%. Floors are those figures minus a margin.
 */
describe('OfflineAnalyzer measured on safety-vest-v4', () => {
  it('keeps "hard hat seen" precision and recall above the measured floor', async () => {
    const result = await measureAnalyzer(undefined, ['safety-vest-v4']);
    expect(result.images).toHaveLength(90);
    const row = (measure: string) => result.table.find((r) => r.dataset === 'safety-vest-v4' && r.measure === measure)!;
    const hat = row('hard hat seen');
    expect(hat.precision).toBeGreaterThanOrEqual(0.88);
    expect(hat.recall).toBeGreaterThanOrEqual(0.78);
    const bare = row('bare head seen');
    expect(bare.precision).toBeGreaterThanOrEqual(0.7);
  }, 180_000);
});
