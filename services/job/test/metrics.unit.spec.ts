import type { RecordedEvent } from '@baret/platform';
import { describe, expect, it } from 'vitest';
import { stageDurations } from '../src/metrics.js';

let position = 0;
const event = (type: string, at: string, data: Record<string, unknown> = {}): RecordedEvent => ({
  id: `e${++position}`,
  streamId: 'job-1',
  revision: position,
  position,
  type,
  data: { ...data, at },
  metadata: {},
  createdAt: new Date('2030-01-01T00:00:00Z'), // storage time: never used while the data names one
});
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + s * 1000).toISOString();

describe('stage durations of a finished job, from its timeline', () => {
  it('measures each stage between the steps the worker reported', () => {
    const events = [
      { ...event('job_queued', t(0)), data: { queued_at: t(0) }, createdAt: new Date(t(0)) },
      event('job_started', t(2)),
      event('video_opened', t(3.5)),
      event('frames_sampled', t(9.5), { elapsed_ms: 5800 }),
      event('frames_saved', t(10)),
      event('composites_created', t(11)),
      event('job_classified', t(14)),
      event('composite_analyzed', t(20)),
      event('job_completed', t(31)),
    ];
    expect(stageDurations(events)).toEqual({ queue: 2, probe: 1.5, sampling: 5.8, composites: 1.5, classification: 3, model: 17, total: 31 });
  });

  it('without a classification the model stage starts at the composites; a resumed job counts its last run', () => {
    const events = [
      { ...event('job_queued', t(0)), data: {}, createdAt: new Date(t(0)) },
      event('job_started', t(1)),
      event('video_opened', t(2)),
      event('job_started', t(100)), // the worker died; another resumed the job
      event('job_resumed', t(100)),
      event('video_opened', t(104)),
      event('frames_sampled', t(110)),
      event('composites_created', t(112)),
      event('job_completed', t(120)),
    ];
    const stages = stageDurations(events);
    expect(stages).toEqual({ queue: 1, probe: 4, sampling: 6, composites: 2, model: 8, total: 120 });
    expect(stages.classification).toBeUndefined();
  });

  it('leaves out a stage whose steps are missing or out of order', () => {
    expect(stageDurations([event('job_started', t(5)), event('video_opened', t(4))])).toEqual({});
  });
});
