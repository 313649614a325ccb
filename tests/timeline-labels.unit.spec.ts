/**
 * Every event a job's timeline can hold is named in the web app's timeline, in Turkish and in
 * English (a new progress event of the worker must not show up as its raw type).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROGRESS_EVENTS, type JobEvent } from '../services/job/src/job/job.js';
import { REPORT_LABELS } from '../services/job/src/report/labels.js';

const locale = (lang: string) => JSON.parse(readFileSync(new URL(`../web/src/locales/${lang}.json`, import.meta.url), 'utf8')) as { events: Record<string, string> };

/** The job's own events besides the worker's progress (the type makes a missing one a compile error). */
const LIFECYCLE: Record<Exclude<JobEvent['type'], (typeof PROGRESS_EVENTS)[number]>, true> = {
  job_queued: true,
  job_started: true,
  job_completed: true,
  job_failed: true,
  job_cancel_requested: true,
  job_cancelled: true,
  job_deleted: true,
  job_purged: true,
  finding_reviewed: true,
};

describe('timeline labels', () => {
  it.each(['tr', 'en'])('%s names every event of the job aggregate', (lang) => {
    const { events } = locale(lang);
    const unnamed = [...PROGRESS_EVENTS, ...Object.keys(LIFECYCLE)].filter((type) => !events[type]?.trim());
    expect(unnamed).toEqual([]);
  });

  it.each(['tr', 'en'] as const)('%s: the PDF report names each event as the job page does (issue 54)', (lang) => {
    expect(REPORT_LABELS[lang].events).toEqual(locale(lang).events);
  });

  it('has the sampling progress in both languages, not copied from one to the other', () => {
    expect(locale('tr').events.frames_sampling).toBe('Kareler örnekleniyor');
    expect(locale('en').events.frames_sampling).toBe('Sampling frames');
  });
});
