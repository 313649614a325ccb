import { describe, expect, it } from 'vitest';
import { measureAnalyzer } from '../../../../bench/analyzer.js';

/**
 * Regression floor on the labelled photographs (safety-vest-v4, 90 images, never trained on),
 * through the same path as `npm run bench` with the learned classifier. The floors are the figures
 * measured when the model was committed (see models/MODEL_CARD.md) minus a margin.
 */
describe('OfflineAnalyzer measured on safety-vest-v4 (learned classifier)', () => {
  it('keeps image-level precision and recall above the measured floor', async () => {
    const result = await measureAnalyzer('learned', ['safety-vest-v4']);
    expect(result.images).toHaveLength(90);
    const m = result.byDataset['safety-vest-v4']!;
    const hat = m['hard hat worn']!;
    expect(hat.precision).toBeGreaterThanOrEqual(FLOOR.hatWorn.precision);
    expect(hat.recall).toBeGreaterThanOrEqual(FLOOR.hatWorn.recall);
    const bare = m['hard hat not worn']!;
    expect(bare.precision).toBeGreaterThanOrEqual(FLOOR.hatNotWorn.precision);
    expect(bare.recall).toBeGreaterThanOrEqual(FLOOR.hatNotWorn.recall);
    const vest = m['hi-vis worn']!;
    expect(vest.precision).toBeGreaterThanOrEqual(FLOOR.vestWorn.precision);
    expect(vest.recall).toBeGreaterThanOrEqual(FLOOR.vestWorn.recall);
  }, 300_000);
});

const FLOOR = {
  hatWorn: { precision: 0.85, recall: 0.8 },
  hatNotWorn: { precision: 0.5, recall: 0.5 },
  vestWorn: { precision: 0.8, recall: 0.7 },
};
