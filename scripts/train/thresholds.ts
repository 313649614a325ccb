/**
 * The verdict thresholds of the PPE classifiers, picked on the hold-out fold's crops (ADR 0013's
 * rule): the lowest probability whose hold-out precision reaches the target.
 */
const round = (v: number): number => Number(v.toPrecision(6));

export interface Curve {
  threshold: number;
  precision: number;
  recall: number;
}

/** A hold-out crop as the run time would judge it: its probability of the class, whether it is one, whether it passes the class's gate. */
export interface Scored {
  p: number;
  positive: boolean;
  passes: boolean;
}

/** Precision and recall of "the class" when p ≥ t (and the crop passes its gate, as at run time). */
export function curve(scored: Scored[]): Curve[] {
  const positives = scored.filter((s) => s.positive).length;
  const out: Curve[] = [];
  for (let t = 0.5; t < 0.991; t += 0.01) {
    const sel = scored.filter((s) => s.p >= t && s.passes);
    const tp = sel.filter((s) => s.positive).length;
    out.push({ threshold: round(t), precision: sel.length ? tp / sel.length : 1, recall: positives ? tp / positives : 0 });
  }
  return out;
}

/** Lowest threshold whose hold-out precision reaches `target` (else the most precise one). */
export function pick(c: Curve[], target: number): Curve {
  return c.find((p) => p.precision >= target) ?? [...c].sort((a, b) => b.precision - a.precision)[0]!;
}

/**
 * The head thresholds on hold-out crops: a hard hat `seen` from the lowest p(hat) whose precision
 * reaches 0.95; "no hard hat" (bare or other headgear, p(bare) + p(other)) from the lowest whose
 * precision reaches 0.9.
 */
export function headThresholds(scored: ReadonlyArray<{ p: number[]; row: { label: number } }>): { hat: Curve; noHat: Curve } {
  const hat = curve(scored.map((s) => ({ p: s.p[0]!, positive: s.row.label === 0, passes: true })));
  const noHat = curve(scored.map((s) => ({ p: 1 - s.p[0]!, positive: s.row.label !== 0, passes: true })));
  return { hat: pick(hat, 0.95), noHat: pick(noHat, 0.9) };
}

