/**
 * Sampling progress as job events (`frames_sampling`, `{ done, total }`): often enough that the
 * timeline moves during the longest step, rarely enough that the job's event stream stays short.
 */

export interface ProgressThrottle {
  /** At least this long between two reports, unless the second is `minShare` further (default 1000 ms). */
  minIntervalMs?: number;
  /** A report this much further than the last one (a share of `total`) goes out at once (default 0.25). */
  minShare?: number;
  /** Reports at most, the first (done 0) included (default 10). */
  maxEvents?: number;
  /** Milliseconds now (default `Date.now`). */
  now?: () => number;
}

/**
 * Wraps `report` so that, of the progress it is fed, it passes on: the first call (sampling has
 * started, and how many frames it will give); then a call that is at least a quarter of the way
 * further than the last one passed, or a tenth further and at least a second later; never a step
 * back or a standstill, never `done >= total` (the `frames_sampled` event says that), and no more
 * than 10 in all.
 */
export function throttleProgress(report: (done: number, total: number) => void, opts: ProgressThrottle = {}): (done: number, total: number) => void {
  const minIntervalMs = opts.minIntervalMs ?? 1000;
  const minShare = opts.minShare ?? 0.25;
  const maxEvents = opts.maxEvents ?? 10;
  const now = opts.now ?? Date.now;
  let sent = 0;
  let lastDone = 0;
  let lastAt = 0;
  return (done, total) => {
    if (sent >= maxEvents || !(total > 0) || done >= total || done < 0) return;
    const at = now();
    if (sent > 0) {
      const further = (done - lastDone) / total;
      if (further <= 0) return;
      const due = further >= minShare || (further >= 1 / maxEvents && at - lastAt >= minIntervalMs);
      if (!due) return;
    }
    sent++;
    lastDone = done;
    lastAt = at;
    report(done, total);
  };
}
