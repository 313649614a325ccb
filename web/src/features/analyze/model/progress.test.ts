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
const sampling = (done: number, seconds: number, total = 24): LogEntry => ({ event: 'frames_sampling', timestamp: at(seconds), data: { done, total } });

describe('progress of a running job from its timeline', () => {
  it('waits, then samples frames toward N = composites × frames per composite', () => {
    expect(jobProgress([queued], t0)).toMatchObject({ phase: 'waiting', percent: 0, secondsLeft: null });
    expect(jobProgress([queued, started], t0)).toMatchObject({ phase: 'sampling', frames: { done: 0, total: 24 }, composites: { done: 0, total: 6 } });
    expect(jobProgress([queued, started, sampled], t0)).toMatchObject({ phase: 'composing', frames: { done: 24, total: 24 } });
  });

  it('follows the latest sampling report: frames n/N and the percent move from 5 toward 30 while sampling', () => {
    const start = jobProgress([queued, started, sampling(0, 2)], t0);
    expect(start).toMatchObject({ phase: 'sampling', frames: { done: 0, total: 24 }, percent: 5 });
    const quarter = jobProgress([queued, started, sampling(0, 2), sampling(6, 5)], t0);
    expect(quarter).toMatchObject({ phase: 'sampling', frames: { done: 6, total: 24 } });
    expect(quarter.percent).toBeCloseTo(5 + 25 / 4);
    const most = jobProgress([queued, started, sampling(0, 2), sampling(6, 5), sampling(18, 9)], t0);
    expect(most).toMatchObject({ phase: 'sampling', frames: { done: 18, total: 24 } });
    expect(most.percent).toBeCloseTo(5 + (25 * 3) / 4);
    expect(most.percent).toBeLessThan(30);
    // a very short video gives fewer frames than asked: progress counts toward what it will give
    expect(jobProgress([queued, started, sampling(2, 3, 4)], t0)).toMatchObject({ frames: { done: 2, total: 4 } });
    // once sampled, the sampled count
    expect(jobProgress([queued, started, sampling(0, 2), sampling(18, 9), sampled], t0)).toMatchObject({ phase: 'composing', frames: { done: 24, total: 24 }, percent: 30 });
  });

  it('ignores the sampling progress of a run that was interrupted, once the job resumed', () => {
    const resumed: LogEntry = { event: 'job_resumed', timestamp: at(40), data: { attempt: 2 } };
    expect(jobProgress([queued, started, sampling(0, 2), sampling(18, 9), resumed], t0)).toMatchObject({ phase: 'sampling', frames: { done: 0, total: 24 }, percent: 5 });
    expect(jobProgress([queued, started, sampling(18, 9), resumed, sampling(6, 45)], t0)).toMatchObject({ frames: { done: 6, total: 24 } });
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
