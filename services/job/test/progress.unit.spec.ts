import { describe, expect, it } from 'vitest';
import { decideJob } from '../src/job/businessLogic.js';
import { evolveJob, initialJobState, type JobEvent, type JobQueuedData, type JobState } from '../src/job/job.js';

const queued: JobQueuedData = {
  job_id: 'j1',
  user_id: 'u1',
  user_email: 'crew@example.com',
  user_full_name: null,
  input_filename: 'direk.mp4',
  video_key: 'uploads/j1/video',
  video_size: 1000,
  params: { job_type: 'auto', sampling: 'person', target_composites: 6, frames_per_composite: 4, dedupe_by_equipment: true },
  queued_at: '2026-01-01T12:00:00.000Z',
};
const at = new Date('2026-01-01T12:00:05Z');
const given = (events: JobEvent[]): JobState => events.reduce(evolveJob, initialJobState());
const report = (event: string, data: Record<string, unknown> = {}) => ({ type: 'record_progress' as const, data: { event, data, at } });
const started: JobEvent = { type: 'job_started', data: { at: '2026-01-01T12:00:01.000Z' } };

describe('the job records what the worker reports', () => {
  it('records sampling progress (frames_sampling) of a running job in its timeline', () => {
    const state = given([{ type: 'job_queued', data: queued }, started]);
    expect(decideJob(report('frames_sampling', { done: 6, total: 24 }), state)).toEqual([
      { type: 'frames_sampling', data: { done: 6, total: 24, at: at.toISOString() } },
    ]);
  });

  it('ignores progress of a job that is not running, and event types it does not know', () => {
    expect(decideJob(report('frames_sampling', { done: 6, total: 24 }), given([{ type: 'job_queued', data: queued }]))).toEqual([]);
    const done = given([{ type: 'job_queued', data: queued }, started, { type: 'job_completed', data: { at: '2026-01-01T12:01:00.000Z', result: {} } }]);
    expect(decideJob(report('frames_sampling', { done: 6, total: 24 }), done)).toEqual([]);
    expect(decideJob(report('frames_guessed'), given([{ type: 'job_queued', data: queued }, started]))).toEqual([]);
  });
});
