import { describe, expect, it } from 'vitest';

import { jobProgress } from '@/features/analyze/model/progress';
import type { LogEntry } from '@/types/api';

const t0 = Date.parse('2025-03-04T10:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
const queued: LogEntry = { event: 'job_queued', timestamp: at(0), data: { params: { target_composites: 6, frames_per_composite: 4 } } };
const started: LogEntry = { event: 'job_started', timestamp: at(1) };
const sampled: LogEntry = { event: 'frames_sampled', timestamp: at(20), data: { count: 24 } };
const created: LogEntry = { event: 'composites_created', timestamp: at(30), data: { count: 6 } };
const analyzed = (index: number, seconds: number): LogEntry => ({ event: 'composite_analyzed', timestamp: at(seconds), data: { index } });

describe('progress of a running job from its timeline', () => {
  it('waits, then samples frames toward N = composites × frames per composite', () => {
    expect(jobProgress([queued], t0)).toMatchObject({ phase: 'waiting', percent: 0, secondsLeft: null });
    expect(jobProgress([queued, started], t0)).toMatchObject({ phase: 'sampling', frames: { done: 0, total: 24 }, composites: { done: 0, total: 6 } });
    expect(jobProgress([queued, started, sampled], t0)).toMatchObject({ phase: 'composing', frames: { done: 24, total: 24 } });
  });

  it('counts composites n/N and estimates the time left from the pace so far', () => {
    const logs = [queued, started, sampled, created, analyzed(0, 40), analyzed(1, 50)];
    const progress = jobProgress(logs, t0 + 52_000);
    expect(progress.phase).toBe('analyzing');
    expect(progress.composites).toEqual({ done: 2, total: 6 });
    // 10 s per composite, 4 left, 2 s since the last one
    expect(progress.secondsLeft).toBe(38);
    expect(progress.percent).toBeGreaterThan(40);
    expect(progress.percent).toBeLessThan(97);
    expect(jobProgress([...logs, analyzed(2, 60), analyzed(3, 70), analyzed(4, 80), analyzed(5, 90)], t0 + 91_000)).toMatchObject({ phase: 'finishing', secondsLeft: null });
  });
});
