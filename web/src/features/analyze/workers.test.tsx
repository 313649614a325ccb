import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { workerTable } from '@/features/analyze/model/result';
import { i18n } from '@/lib/i18n';
import { doneJob, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { JobDetail, JobResult, Violation } from '@/types/api';

const image = () => new HttpResponse(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { headers: { 'Content-Type': 'image/jpeg' } });

const box = { x: 0.5, y: 0.1, w: 0.2, h: 0.8 };

/** Worker 2 without a helmet over the track 0:03–0:09 (4 frames without it, clearest at 0:05). */
const trackViolation: Violation = {
  group: ['pic1'],
  group_name: 'Helmet',
  worker: 2,
  time_sec: 3.2,
  end_sec: 9.7,
  frames: 4,
  evidence_sec: 5.4,
  confidence: 0.86,
  box,
  image_url: '/jobs/job-7/violations/0',
};

/**
 * A result of issue 51: three workers followed through the video. Worker 1 wore everything judged,
 * worker 2 was seen without a helmet (the one violation), worker 3 was a glimpse: cannot tell.
 * Gloves were judged for worker 2 only.
 */
function trackedJob(overrides: Partial<JobResult> = {}): JobDetail {
  const base = doneJob();
  return doneJob({
    job_id: 'job-7',
    result: {
      ...base.result!,
      required_groups: [['pic1'], ['pic23'], ['pic7', 'pic8']],
      required_groups_name: ['Helmet', 'Hi-vis vest', 'Insulating gloves'],
      missing_groups: [['pic1']],
      missing_groups_name: ['Helmet'],
      satisfied_groups: [['pic23'], ['pic7', 'pic8']],
      satisfied_equipment: ['pic23', 'pic7'],
      satisfied_equipment_name: ['Hi-vis vest', 'Insulating gloves'],
      not_checked: [],
      not_checked_name: [],
      evidence: [],
      workers_seen: 3,
      violations: [trackViolation],
      missing_evidence: [{ group: ['pic1'], violation: 0, image_url: '/jobs/job-7/violations/0' }],
      workers: [
        {
          worker: 1,
          first_sec: 0.5,
          last_sec: 12.1,
          frames: 10,
          items: { pic1: { verdict: 'worn', frames_worn: 9, frames_without: 0, confidence: 1 }, pic23: { verdict: 'worn', frames_worn: 8, frames_without: 1, confidence: 0.9 } },
        },
        {
          worker: 2,
          first_sec: 3.2,
          last_sec: 9.7,
          frames: 6,
          items: {
            pic1: { verdict: 'missing', frames_worn: 1, frames_without: 4, confidence: 0.86 },
            pic23: { verdict: 'worn', frames_worn: 6, frames_without: 0, confidence: 1 },
            'pic7,pic8': { verdict: 'worn', frames_worn: 3, frames_without: 0, confidence: 1 },
          },
        },
        {
          worker: 3,
          first_sec: 14.2,
          last_sec: 14.6,
          frames: 1,
          items: { pic1: { verdict: 'cannot_tell', frames_worn: 0, frames_without: 0, confidence: null }, pic23: { verdict: 'cannot_tell', frames_worn: 0, frames_without: 1, confidence: 0.3 } },
        },
      ],
      ...overrides,
    },
  });
}

/** A result stored before issue 51: no workers, a violation without evidence_sec. */
function olderJob(): JobDetail {
  const { workers: _workers, ...result } = trackedJob().result!;
  return { ...trackedJob(), result: { ...result, violations: [{ group: ['pic1'], group_name: 'Helmet', worker: 2, time_sec: 10.4, box, image_url: '/jobs/job-7/violations/0' }] } };
}

async function show(job: JobDetail) {
  server.use(
    http.get('*/jobs/job-7', () => HttpResponse.json(job)),
    http.get('*/jobs/job-7/violations/:n', image),
  );
  renderApp('/dashboard/jobs/job-7', { user: user() });
}

const TEXT = {
  tr: {
    violations: 'İhlaller',
    caption: 'Helmet — 2. çalışan, 0:03–0:09 arası görüldü, 4 karede yok; kanıt 0:05',
    captionReason: 'Helmet — 2. çalışan, 0:03–0:09 arası görüldü, 4 karede yok; kanıt 0:05 (başı açık)',
    moment: 'Helmet — 4. çalışan, 0:14 anında görüldü, 1 karede yok',
    oldCaption: 'Helmet — 0:10 anında 2. çalışan',
    proof: /0:05 anında eksik görüldü \(2\. çalışan\)/,
    workers: /^Çalışanlar 3$/,
    workerHeading: /^Çalışanlar/,
    worker: (n: number) => `${n}. çalışan`,
    seen: 'Görüldü',
    seen2: '0:03–0:09 (6 kare)',
    seen3: '0:14 anında (1 kare)',
    worn: 'Kullanıyor',
    missing: 'Eksik',
    cannotTell: 'Belirlenemedi',
    notChecked: 'Kontrol edilmedi',
    cannotTellHint: 'Belirlenemedi: çalışan çok kısa süre, çok küçük ya da net olmayan biçimde görüldüğü için karar verilemedi — ihlal sayılmaz.',
    missingCount: /^Eksik 1$/,
  },
  en: {
    violations: 'Violations',
    caption: 'Helmet — worker 2, seen 0:03–0:09, without it in 4 frames; evidence at 0:05',
    captionReason: 'Helmet — worker 2, seen 0:03–0:09, without it in 4 frames; evidence at 0:05 (bare head)',
    moment: 'Helmet — worker 4, seen at 0:14, without it in 1 frame',
    oldCaption: 'Helmet — worker 2 at 0:10',
    proof: /Seen missing at 0:05 \(worker 2\)/,
    workers: /^Workers 3$/,
    workerHeading: /^Workers/,
    worker: (n: number) => `Worker ${n}`,
    seen: 'Seen',
    seen2: '0:03–0:09 (6 frames)',
    seen3: 'at 0:14 (1 frame)',
    worn: 'Worn',
    missing: 'Missing',
    cannotTell: 'Cannot tell',
    notChecked: 'Not checked',
    cannotTellHint: 'Cannot tell: the worker was seen too briefly, too small or too unclear to decide — not counted as a violation.',
    missingCount: /^Missing 1$/,
  },
} as const;

afterEach(async () => {
  await i18n.changeLanguage('tr');
});

describe.each(['tr', 'en'] as const)('%s', (lang) => {
  const text = TEXT[lang];

  it('captions a violation with the worker’s track, the frames without it and the evidence moment', async () => {
    await i18n.changeLanguage(lang);
    await show(trackedJob());
    const section = (await screen.findByRole('heading', { name: text.violations })).closest('section')!;
    expect(within(section).getByText(text.caption)).toBeInTheDocument();
    expect(await within(section).findByRole('img', { name: text.caption })).toBeInTheDocument();
    // The missing list points at the evidence frame, not at the track's start.
    expect(screen.getByText(text.proof)).toBeInTheDocument();
  });

  it('adds the reason after the evidence moment, and captions a one-moment track without a span', async () => {
    await i18n.changeLanguage(lang);
    const moment: Violation = { ...trackViolation, worker: 4, time_sec: 14.2, end_sec: 14.6, frames: 1, evidence_sec: 14.2, image_url: '/jobs/job-7/violations/1' };
    await show(trackedJob({ violations: [{ ...trackViolation, reason: 'bare_head' }, moment] }));
    const section = (await screen.findByRole('heading', { name: text.violations })).closest('section')!;
    expect(within(section).getByText(text.captionReason)).toBeInTheDocument();
    expect(within(section).getByText(text.moment)).toBeInTheDocument();
  });

  it('lists every worker with when they were seen and a verdict per item; a glimpse reads "cannot tell", never missing nor worn, and is no violation', async () => {
    await i18n.changeLanguage(lang);
    await show(trackedJob());
    const heading = await screen.findByRole('heading', { name: text.workers });
    const section = heading.closest('section')!;
    const table = within(section).getByRole('table', { name: text.workers });
    // Columns: the worker, when seen, then each judged item by its name (a group of two codes included).
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual([lang === 'tr' ? 'Çalışan' : 'Worker', text.seen, 'Helmet', 'Hi-vis vest', 'Insulating gloves']);

    const cells = (n: number) => within(within(table).getByRole('rowheader', { name: text.worker(n) }).closest('tr')!).getAllByRole('cell');
    const [seen1, helmet1, vest1, gloves1] = cells(1);
    expect(seen1).toHaveTextContent('0:00–0:12');
    expect(helmet1).toHaveTextContent(text.worn);
    expect(vest1).toHaveTextContent(text.worn);
    expect(gloves1).toHaveTextContent(text.notChecked);

    const [seen2, helmet2, vest2, gloves2] = cells(2);
    expect(seen2).toHaveTextContent(text.seen2);
    expect(helmet2).toHaveTextContent(text.missing);
    expect(vest2).toHaveTextContent(text.worn);
    expect(gloves2).toHaveTextContent(text.worn);

    const [seen3, helmet3, vest3, gloves3] = cells(3);
    expect(seen3).toHaveTextContent(text.seen3);
    for (const cell of [helmet3, vest3]) {
      expect(cell).toHaveTextContent(text.cannotTell);
      expect(cell).not.toHaveTextContent(text.missing);
      expect(cell).not.toHaveTextContent(text.worn);
    }
    expect(gloves3).toHaveTextContent(text.notChecked);
    expect(within(section).getByText(text.cannotTellHint)).toBeInTheDocument();

    // The glimpsed worker is not a violation, and adds nothing missing.
    const violations = screen.getByRole('heading', { name: text.violations }).closest('section')!;
    expect(within(violations).getAllByRole('figure')).toHaveLength(1);
    expect(within(violations).queryByText(new RegExp(text.worker(3), 'i'))).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: text.missingCount })).toBeInTheDocument();
  });

  it('leaves out the cannot-tell hint when every worker was decided', async () => {
    await i18n.changeLanguage(lang);
    const decided = trackedJob().result!.workers!.slice(0, 2);
    await show(trackedJob({ workers: decided }));
    const section = (await screen.findByRole('heading', { name: new RegExp(`${text.workerHeading.source} 2$`) })).closest('section')!;
    expect(within(section).queryByText(text.cannotTellHint)).not.toBeInTheDocument();
    expect(within(section).queryByText(text.cannotTell)).not.toBeInTheDocument();
  });

  it('still shows an older result: the old caption, the proof at its time, and no workers block', async () => {
    await i18n.changeLanguage(lang);
    await show(olderJob());
    const section = (await screen.findByRole('heading', { name: text.violations })).closest('section')!;
    expect(within(section).getByText(text.oldCaption)).toBeInTheDocument();
    expect(screen.getByText(new RegExp(text.proof.source.replace('0:05', '0:10')))).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: text.workerHeading })).not.toBeInTheDocument();
  });

  it('shows no workers block for an empty list of workers', async () => {
    await i18n.changeLanguage(lang);
    await show(trackedJob({ workers: [] }));
    expect(await screen.findByRole('heading', { name: text.violations })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: text.workerHeading })).not.toBeInTheDocument();
  });
});

describe('workerTable', () => {
  it('names each item key by its required group (codes in any order), in the order of the required groups', () => {
    const result = { ...trackedJob().result!, workers: [{ worker: 1, first_sec: 0, last_sec: 1, frames: 2, items: { 'pic8,pic7': { verdict: 'worn', frames_worn: 2, frames_without: 0, confidence: 1 }, pic9: { verdict: 'cannot_tell', frames_worn: 0, frames_without: 0, confidence: null }, pic1: { verdict: 'missing', frames_worn: 0, frames_without: 2, confidence: 1 } } }] } satisfies JobResult;
    const { columns, rows } = workerTable(result);
    expect(columns).toEqual([
      { key: 'pic1', name: 'Helmet' },
      { key: 'pic8,pic7', name: 'Insulating gloves' },
      { key: 'pic9', name: 'pic9' },
    ]);
    expect(rows).toEqual([{ worker: 1, firstSec: 0, lastSec: 1, frames: 2, verdicts: ['missing', 'worn', 'cannot_tell'] }]);
  });

  it('is empty for a result without workers, or with none', () => {
    expect(workerTable({ ...trackedJob().result!, workers: undefined }).rows).toEqual([]);
    expect(workerTable({ ...trackedJob().result!, workers: [] }).rows).toEqual([]);
  });
});
