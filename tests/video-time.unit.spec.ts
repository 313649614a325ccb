/**
 * One rule for a moment in the video (issue 54): the page (the web app's clockTime) and the PDF
 * (the server's videoMoment) write the same time for the same second, from one table of cases:
 * whole seconds cut down, m:ss, h:mm:ss past an hour. (The CSV export and the mails name no moment
 * in a video: counts of violations only.) The PDF words a violation as the page captions it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { videoMoment } from '@baret/platform';
import { REPORT_LABELS } from '../services/job/src/report/labels.js';
import { violationText } from '../services/job/src/report/violations.js';
import { clockTime } from '../web/src/lib/video-time.js';

/** Seconds into the video → what a person reads; the cases of the times issue 54 found written two ways. */
const VIDEO_MOMENTS: Array<[number, string]> = [
  [0, '0:00'],
  [0.4, '0:00'],
  [0.999, '0:00'],
  [4.5, '0:04'], // the page said 0:04, the PDF "at 5 s"
  [6.8, '0:06'],
  [7.5, '0:07'], // the page said 0:06–0:07, the PDF "7 s to 8 s"
  [8.6, '0:08'], // the page said 0:00–0:08, the PDF "0–9 sn"
  [10.4, '0:10'],
  [59.99, '0:59'],
  [60, '1:00'],
  [70.9, '1:10'],
  [599.5, '9:59'],
  [3599.9, '59:59'],
  [3600, '1:00:00'],
  [3725, '1:02:05'],
  [36_000, '10:00:00'],
  [-1, '0:00'],
  [Number.NaN, '0:00'],
];

describe('a moment in the video', () => {
  it.each(VIDEO_MOMENTS)('%s s is %s on the page and in the PDF', (seconds, text) => {
    expect(clockTime(seconds)).toBe(text);
    expect(videoMoment(seconds)).toBe(text);
  });
});

/** The job page's captions (web/src/locales), with `{{name}}` written as the PDF's `{name}`. */
function pageCaptions(lang: 'tr' | 'en'): Record<string, string> {
  const locale = JSON.parse(readFileSync(new URL(`../web/src/locales/${lang}.json`, import.meta.url), 'utf8')) as { analyze: { result: Record<string, unknown> } };
  return Object.fromEntries(Object.entries(locale.analyze.result).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v.replace(/\{\{(\w+)\}\}/g, '{$1}')]] : [])));
}

describe('a violation in the PDF', () => {
  it.each(['tr', 'en'] as const)('%s: is worded as its caption on the job page', (lang) => {
    const page = pageCaptions(lang);
    const l = REPORT_LABELS[lang];
    expect(l.violationCaption).toBe(page.violationCaption);
    expect(l.violationSpanCaption).toBe(page.violationSpanCaption);
    expect(l.violationWithReason).toBe(page.violationWithReason);
    for (const form of ['one', 'other'] as const) {
      expect(l.violationTrackCaption[form]).toBe(page[`violationTrackCaption_${form}`]);
      expect(l.violationTrackMoment[form]).toBe(page[`violationTrackMoment_${form}`]);
    }
  });

  it('gives the times issue 54 found written two ways as the page does', () => {
    const v = { group_name: 'Hard hat', worker: 1, time_sec: 0, end_sec: 8.6, frames: 3, evidence_sec: 4.5, reason_name: null, image_url: '/v/0' };
    expect(violationText(REPORT_LABELS.en, v, 'en')).toBe('Hard hat — worker 1, seen 0:00–0:08, without it in 3 frames; evidence at 0:04');
    expect(violationText(REPORT_LABELS.tr, { ...v, time_sec: 6.8, end_sec: 7.5, frames: 1, evidence_sec: 6.8, group_name: 'Baret', reason_name: 'başı açık' }, 'tr')).toBe(
      'Baret — 1. çalışan, 0:06–0:07 arası görüldü, 1 karede yok; kanıt 0:06 (başı açık)',
    );
    expect(violationText(REPORT_LABELS.en, { ...v, end_sec: null, evidence_sec: null, frames: null, time_sec: 4.5 }, 'en')).toBe('Hard hat — worker 1 at 0:04');
  });
});
