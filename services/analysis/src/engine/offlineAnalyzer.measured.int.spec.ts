import { describe, expect, it } from 'vitest';
import { measureAnalyzer } from '../../../../bench/analyzer.js';
import type { MeasureName } from '../../../../scripts/eval/measure.js';

/**
 * Regression floor on the labelled photographs (safety-vest-v4, 90 images, never trained on),
 * through the same path as `npm run bench` with the learned classifier. The floors are the figures
 * measured when the model was committed (see models/MODEL_CARD.md) minus a margin.
 */
describe('OfflineAnalyzer measured on safety-vest-v4 (learned classifier)', () => {
  it('keeps image-level precision and recall above the measured floor', async () => {
    const result = await measureAnalyzer(['safety-vest-v4']);
    expect(result.images).toHaveLength(90);
    const m = result.byDataset['safety-vest-v4']!;
    for (const [measure, floor] of Object.entries(FLOOR) as Array<[MeasureName, { precision: number; recall: number }]>) {
      expect(m[measure]!.precision, measure).toBeGreaterThanOrEqual(floor.precision);
      expect(m[measure]!.recall, measure).toBeGreaterThanOrEqual(floor.recall);
    }
  }, 300_000);
});

/**
 * Measured at commit (v4, issue 26: the head classifier judges hard hat / bare / other headgear;
 * safety-vest-v4 with the hi-vis label corrections, as `npm run bench` measures it): hard hat worn
 * 95.1 % / 85.3 %, not worn 72.0 % / 81.8 %, hi-vis worn 82.6 % / 90.5 %, hi-vis not worn 95.2 % /
 * 88.2 %. Each floor is about one image per class below. Since box-only close-ups are judged (issue
 * 26, heads not found) hard hat worn is 93.5 % / 85.3 %: valid__img25's hard hat, judged right, is not
 * labelled — so that floor is now less than one image away.
 */
const FLOOR: Record<MeasureName, { precision: number; recall: number }> = {
  'hard hat worn': { precision: 0.93, recall: 0.83 },
  'hard hat not worn': { precision: 0.69, recall: 0.77 },
  'hi-vis worn': { precision: 0.79, recall: 0.85 },
  'hi-vis not worn': { precision: 0.93, recall: 0.86 },
};
