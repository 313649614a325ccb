import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { i18n } from '@/lib/i18n';
import { doneJob, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { JobDetail } from '@/types/api';

const image = () => new HttpResponse(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { headers: { 'Content-Type': 'image/jpeg' } });

/** A finished job whose video showed no person: both checkable groups not judged, nothing missing. */
function noWorkerJob(): JobDetail {
  const base = doneJob();
  return doneJob({
    job_id: 'job-5',
    result: {
      ...base.result!,
      required_groups: [['pic1'], ['pic23'], ['pic30']],
      required_groups_name: ['Helmet', 'Hi-vis vest', 'Voltage tester'],
      missing_groups: [],
      missing_groups_name: [],
      satisfied_groups: [],
      satisfied_equipment: [],
      satisfied_equipment_name: [],
      not_checked: [['pic1'], ['pic23'], ['pic30']],
      not_checked_name: ['Helmet', 'Hi-vis vest', 'Voltage tester'],
      not_judged: [['pic1'], ['pic23']],
      not_judged_name: ['Helmet', 'Hi-vis vest'],
      workers_seen: 0,
      no_worker_seen: true,
      violations: [],
      missing_evidence: [],
      evidence: [],
      model_used: 'baret-offline (human centernet+movenet, learned PPE classifier)',
    },
  });
}

/** A worker in a cap: a hard-hat violation whose reason is other headgear. */
function capJob(): JobDetail {
  const base = doneJob();
  return doneJob({
    job_id: 'job-6',
    result: {
      ...base.result!,
      required_groups: [['pic1']],
      required_groups_name: ['Helmet'],
      missing_groups: [['pic1']],
      missing_groups_name: ['Helmet'],
      satisfied_groups: [],
      satisfied_equipment: [],
      satisfied_equipment_name: [],
      not_checked: [],
      not_checked_name: [],
      violations: [{ group: ['pic1'], group_name: 'Helmet', worker: 1, time_sec: 2, box: { x: 0.3, y: 0.1, w: 0.3, h: 0.8 }, image_url: '/jobs/job-6/violations/0', reason: 'other_headgear' }],
      missing_evidence: [{ group: ['pic1'], violation: 0, image_url: '/jobs/job-6/violations/0' }],
      evidence: [],
    },
  });
}

afterEach(async () => {
  await i18n.changeLanguage('tr');
});

describe.each([
  ['tr', 'Çalışan görülmedi — değerlendirilecek bir şey yok.', 'Değerlendirilemedi', 'Eksik', 'Helmet — 0:02 anında 1. çalışan (kep veya şapka, baret değil)', 'OPENAI'],
  ['en', 'No worker seen — nothing to judge.', 'Not judged', 'Missing', 'Helmet — worker 1 at 0:02 (cap or hat, not a hard hat)', 'OPENAI'],
] as const)('%s', (lang, noWorker, notJudged, missingTitle, capCaption, operatorWord) => {
  it('a video with no worker says so, reports nothing missing, lists the checkable groups as not judged, and names no setting', async () => {
    await i18n.changeLanguage(lang);
    server.use(http.get('*/jobs/job-5', () => HttpResponse.json(noWorkerJob())));
    renderApp('/dashboard/jobs/job-5', { user: user() });
    expect(await screen.findByText(noWorker)).toBeInTheDocument();
    const missing = screen.getByRole('heading', { name: new RegExp(`^${missingTitle} 0$`) });
    expect(missing).toBeInTheDocument();
    const judged = screen.getByRole('heading', { name: notJudged }).closest('section')!;
    expect(within(judged).getByText('Helmet')).toBeInTheDocument();
    expect(within(judged).getByText('Hi-vis vest')).toBeInTheDocument();
    expect(within(judged).queryByText('Voltage tester')).not.toBeInTheDocument();
    // The helmet row says "not judged", never "missing".
    const row = screen.getByRole('rowheader', { name: 'Helmet' }).closest('tr')!;
    expect(within(row).getByText(new RegExp(notJudged))).toBeInTheDocument();
    // Words for users: no environment variable names on the job page, the checker named by what it does (issue 40).
    expect(document.body.textContent).not.toContain(operatorWord);
    expect(document.body.textContent).not.toMatch(/centernet|baret-offline/);
    expect(screen.getByText(lang === 'tr' ? 'Model: Baret yerleşik denetleyicisi (baret ve reflektörlü kıyafet)' : 'Model: Baret built-in checker (hard hats and hi-vis clothing)')).toBeInTheDocument();
  });

  it('a worker in a cap: the violation says cap or hat, not a hard hat', async () => {
    await i18n.changeLanguage(lang);
    server.use(
      http.get('*/jobs/job-6', () => HttpResponse.json(capJob())),
      http.get('*/jobs/job-6/violations/0', image),
    );
    renderApp('/dashboard/jobs/job-6', { user: user() });
    expect(await screen.findByText(capCaption)).toBeInTheDocument();
  });
});
