import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { clockTime } from '@/features/analyze/model/result';
import { doneJob, quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { JobDetail } from '@/types/api';

const image = () => new HttpResponse(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { headers: { 'Content-Type': 'image/jpeg' } });

/** A job whose helmet group was seen on some workers but violated by the last one, at 10.4 s. */
function violatedJob(overrides: Partial<JobDetail['result'] & object> = {}): JobDetail {
  const base = doneJob();
  return doneJob({
    result: {
      ...base.result!,
      required_groups: [['pic1'], ['pic23']],
      required_groups_name: ['Helmet', 'Hi-vis vest'],
      missing_groups: [['pic1']],
      missing_groups_name: ['Helmet'],
      satisfied_groups: [['pic23']],
      satisfied_equipment: ['pic23'],
      satisfied_equipment_name: ['Hi-vis vest'],
      not_checked: [],
      not_checked_name: [],
      evidence: [{ code: 'pic23', name: 'Hi-vis vest', composite_index: 0, frame_time_sec: 1.5, image_url: '/jobs/job-1/evidence/0' }],
      job_type: 'genel_saha_girisi',
      job_type_source: 'fallback',
      job_type_confidence: 0,
      violations: [{ group: ['pic1'], group_name: 'Helmet', worker: 2, time_sec: 10.4, box: { x: 0.5, y: 0.1, w: 0.2, h: 0.8 }, image_url: '/jobs/job-1/violations/0' }],
      missing_evidence: [{ group: ['pic1'], violation: 0, image_url: '/jobs/job-1/violations/0' }],
      ...overrides,
    },
  });
}

/** Neither "nothing missing" text of the page (tr), and a non-zero missing count. */
function expectNotNothingMissing() {
  expect(screen.queryByText('Eksik yok.')).not.toBeInTheDocument();
  expect(screen.queryByText('Kontrol edilen donanımlarda eksik yok.')).not.toBeInTheDocument();
  const heading = screen.getByRole('heading', { name: /^Eksik \d+$/ });
  expect(Number(heading.textContent?.replace(/\D/g, ''))).toBeGreaterThan(0);
}

async function showResult(job: JobDetail) {
  server.use(
    http.get('*/tasks', () => HttpResponse.json([])),
    http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })),
    http.get('*/jobs/job-1', () => HttpResponse.json(job)),
    http.get('*/jobs/job-1/evidence/0', image),
    http.get('*/jobs/job-1/violations/0', image),
  );
  renderApp('/dashboard', { user: user({ quota: quota({ plan_name: 'pro', lifetime_limit: null }) }) });
  const u = userEvent.setup();
  await u.upload(await screen.findByLabelText('Video seçin'), new File([new Uint8Array(16)], 'pole.mp4', { type: 'video/mp4' }));
  await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
  await screen.findByRole('heading', { name: 'İhlaller' });
  return u;
}

describe('the result page with a violation', () => {
  it('lists the violation with its crop and "0:10" time, never says nothing missing, and tells the job type was not recognised', async () => {
    const u = await showResult(violatedJob());
    const section = screen.getByRole('heading', { name: 'İhlaller' }).closest('section')!;
    const caption = 'Helmet — 0:10 anında 2. çalışan';
    expect(within(section).getByText(caption)).toBeInTheDocument();
    const open = await within(section).findByRole('button', { name: `Tam boyut aç: ${caption}` });
    await waitFor(() => expect(open).toBeEnabled());
    expect(within(open).getByRole('img', { name: caption })).toBeInTheDocument();

    // Missing: the violated group, with the moment that proves it; never "nothing missing".
    expectNotNothingMissing();
    expect(screen.getByText(/0:10 anında eksik görüldü \(2\. çalışan\)/)).toBeInTheDocument();
    expect(screen.getByText('İş türü tanınamadı, genel kurallar uygulandı; kesin kontrol için iş türünü seçin.')).toBeInTheDocument();

    // A click opens the crop full size in a dialog.
    await u.click(open);
    const dialog = await screen.findByRole('dialog', { name: caption });
    expect(within(dialog).getByRole('img', { name: caption })).toBeInTheDocument();
  });

  it('captions a worker followed over several frames with the whole span and the frame count', async () => {
    const run = { group: ['pic1'], group_name: 'Helmet', worker: 3, time_sec: 9.2, end_sec: 12.4, frames: 4, box: { x: 0.5, y: 0.1, w: 0.2, h: 0.8 }, image_url: '/jobs/job-1/violations/0' };
    await showResult(violatedJob({ violations: [run] }));
    const section = screen.getByRole('heading', { name: 'İhlaller' }).closest('section')!;
    const caption = 'Helmet — 3. çalışan, 0:09–0:12 arası (4 kare)';
    expect(within(section).getByText(caption)).toBeInTheDocument();
    expect(await within(section).findByRole('button', { name: `Tam boyut aç: ${caption}` })).toBeInTheDocument();
  });

  it('shows a violated group as missing even if the server listed no missing group', async () => {
    await showResult(violatedJob({ missing_groups: [], missing_groups_name: [], missing_evidence: [] }));
    expectNotNothingMissing();
    const row = screen.getByRole('rowheader', { name: 'Helmet' }).closest('tr')!;
    expect(within(row).getByText(/Eksik/)).toBeInTheDocument();
  });

  it('says when no sampled frame showed a missing item', async () => {
    await showResult(
      violatedJob({
        missing_groups: [['pic1'], ['pic23']],
        missing_groups_name: ['Helmet', 'Hi-vis vest'],
        missing_evidence: [
          { group: ['pic1'], violation: 0, image_url: '/jobs/job-1/violations/0' },
          { group: ['pic23'], violation: null, image_url: null },
        ],
      }),
    );
    expect(screen.getByText(/Örneklenen hiçbir karede bu ekipman görülmedi\./)).toBeInTheDocument();
  });

  it('puts the violations into the JSON download (the server’s copy, GET /jobs/{id}/result.json, so the download is audited)', async () => {
    const u = await showResult(violatedJob());
    let asked = 0;
    server.use(http.get('*/jobs/job-1/result.json', () => (asked++, HttpResponse.json(violatedJob()))));
    const create = vi.mocked(URL.createObjectURL);
    create.mockClear();
    await u.click(screen.getByRole('button', { name: 'JSON indir' }));
    // (fetch's Blob is Node's, not jsdom's: told apart by its type)
    const types = () => create.mock.calls.map((c) => (c[0] as { type?: string }).type ?? '');
    await waitFor(() => expect(types().some((t) => t.startsWith('application/json'))).toBe(true), { timeout: 5000 });
    expect(asked).toBe(1);
    const blob = create.mock.calls.map((c) => c[0] as Blob).find((b) => b.type.startsWith('application/json'))!;
    const downloaded = JSON.parse(await blob.text()) as JobDetail;
    expect(downloaded.result?.violations).toEqual(violatedJob().result?.violations);
    expect(downloaded.result?.job_type_source).toBe('fallback');
  });
});

describe('clockTime', () => {
  it('writes seconds as m:ss (h:mm:ss past an hour)', () => {
    expect(clockTime(0)).toBe('0:00');
    expect(clockTime(10.4)).toBe('0:10');
    expect(clockTime(70.9)).toBe('1:10');
    expect(clockTime(3725)).toBe('1:02:05');
  });
});
