import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { i18n } from '@/lib/i18n';
import { doneJob, job, quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('a job’s own page', () => {
  it('opens /dashboard/jobs/:id straight from the server (after a reload, on another device) with the report', async () => {
    const asked: string[] = [];
    server.use(
      http.get('*/jobs/job-7', ({ request }) => (asked.push(new URL(request.url).pathname), HttpResponse.json(doneJob({ job_id: 'job-7' })))),
      http.get('*/jobs/:id/evidence/:n', () => new HttpResponse(new Uint8Array([0xff, 0xd8, 0xff]), { headers: { 'content-type': 'image/jpeg' } })),
    );
    renderApp('/dashboard/jobs/job-7', { user: user() });
    expect(await screen.findByRole('heading', { level: 1, name: 'LV panel maintenance' })).toBeInTheDocument();
    expect(asked).toContain('/jobs/job-7');
    expect(screen.getByText('job-7')).toBeInTheDocument();
    expect(screen.getByText('pole.mp4')).toBeInTheDocument();
    // why some items are not checked and whom to ask, in words for users: no setting names
    expect(screen.getByText(/yerleşik denetleyicisi yaptı/)).toBeInTheDocument();
    expect(screen.getByText(/Baret yöneticinizden bir görüntü modeli bağlamasını isteyin/)).toBeInTheDocument();
    expect(document.body.textContent).not.toContain('OPENAI');
    const table = screen.getByRole('table');
    expect(within(table).getByText('Insulating gloves')).toBeInTheDocument();
    // a free user: downloads disabled with the upgrade hint
    expect(screen.getByRole('button', { name: 'PDF indir' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'JSON indir' })).toBeDisabled();
    expect(document.title).toBe('Analiz raporu · Baret');
  });

  it('downloads the PDF in the current language for a pro user', async () => {
    const langs: (string | null)[] = [];
    server.use(
      http.get('*/jobs/job-7', () => HttpResponse.json(doneJob({ job_id: 'job-7', result: { ...doneJob().result!, evidence: [] } }))),
      http.get('*/jobs/job-7/report.pdf', ({ request }) => (langs.push(new URL(request.url).searchParams.get('lang')), new HttpResponse('%PDF-1.7', { headers: { 'content-type': 'application/pdf' } }))),
    );
    const created: Blob[] = [];
    const original = URL.createObjectURL;
    URL.createObjectURL = (blob: Blob) => (created.push(blob), 'blob:test');
    URL.revokeObjectURL = () => undefined;
    try {
      renderApp('/dashboard/jobs/job-7', { user: user({ quota: quota({ plan_name: 'pro' }) }) });
      await userEvent.setup().click(await screen.findByRole('button', { name: 'PDF indir' }));
      await screen.findByRole('button', { name: 'PDF indir' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(langs).toEqual(['tr']);
      expect(created.at(-1)?.type).toBe('application/pdf');
    } finally {
      URL.createObjectURL = original;
    }
  });

  it('says so when the job does not exist', async () => {
    server.use(http.get('*/jobs/nope', () => HttpResponse.json({ detail: 'not found' }, { status: 404 })));
    renderApp('/dashboard/jobs/nope', { user: user() });
    expect(await screen.findByText('Bu iş bulunamadı ya da görme yetkiniz yok.')).toBeInTheDocument();
  });

  it('polls a running job and shows its timeline', async () => {
    server.use(http.get('*/jobs/job-9', () => HttpResponse.json(job({ job_id: 'job-9', status: 'running' }))));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    expect(await screen.findByText('Çalışıyor')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'PDF indir' })).not.toBeInTheDocument();
  });

  it.each([
    ['tr', 'Kareler örnekleniyor', 'Videodan kareler örnekleniyor', 'Kareler 12/24', '12 / 24 kare'],
    ['en', 'Sampling frames', 'Sampling frames from the video', 'Frames 12/24', '12 of 24 frames'],
  ] as const)('%s: shows how far sampling is, as the latest frames_sampling report says', async (lang, event, phase, frames, line) => {
    await i18n.changeLanguage(lang);
    const at = (s: number) => `2025-03-04T10:00:${String(s).padStart(2, '0')}Z`;
    const logs = [
      { event: 'job_queued', timestamp: at(0), data: { params: { target_composites: 6, frames_per_composite: 4 } } },
      { event: 'job_started', timestamp: at(1) },
      { event: 'video_opened', timestamp: at(2) },
      { event: 'frames_sampling', timestamp: at(3), data: { done: 0, total: 24 } },
      { event: 'frames_sampling', timestamp: at(5), data: { done: 6, total: 24 } },
      { event: 'frames_sampling', timestamp: at(8), data: { done: 12, total: 24 } },
    ];
    server.use(http.get('*/jobs/job-9', () => HttpResponse.json(job({ job_id: 'job-9', status: 'running', logs }))));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const bar = await screen.findByRole('progressbar', { name: phase });
    expect(bar).toHaveAttribute('aria-valuetext', expect.stringContaining(frames));
    expect(Number(bar.getAttribute('aria-valuenow'))).toBe(Math.round(5 + 25 / 2));
    // the timeline lists the sampling once, with its latest count
    const timeline = screen.getByRole('list', { name: lang === 'tr' ? 'Zaman çizelgesi' : 'Timeline' });
    const lines = within(timeline).getAllByRole('listitem').filter((item) => item.textContent?.includes(event));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toHaveTextContent(line);
  });

  it.each([
    ['tr', ['24 kare', '6 kompozit', 'Kompozit 1 / 6', 'videodan belirlendi', 'Video uzunluğu 1 dk 25 sn'], /Model fiyatları|Model kullanımı|Erken durdurma/],
    ['en', ['24 frames', '6 composites', 'Composite 1 of 6', 'recognised from the video', 'Video length 1 min 25 s'], /Model prices|Model usage|Early stop/i],
  ] as const)('%s: a finished timeline says its figures in words, without the worker’s keys or internal steps (issue 40)', async (lang, words, internal) => {
    await i18n.changeLanguage(lang);
    const at = (s: number) => `2025-03-04T10:00:${String(s).padStart(2, '0')}Z`;
    const logs = [
      { event: 'job_queued', timestamp: at(0) },
      { event: 'job_started', timestamp: at(1), data: { attempt: 1 } },
      { event: 'model_pricing', timestamp: at(1), data: { model: 'gpt-x', prompt_per_million: 1 } },
      { event: 'video_opened', timestamp: at(2), data: { duration_sec: 85.2, width: 1280, height: 720 } },
      { event: 'frames_sampled', timestamp: at(3), data: { count: 24, sampling: 'person' } },
      { event: 'composites_created', timestamp: at(4), data: { count: 6, frames_per_composite: 4 } },
      { event: 'llm_usage', timestamp: at(5), data: { step: 'classify', prompt_tokens: 10 } },
      { event: 'job_classified', timestamp: at(5), data: { job_type: 'ag_pano_bakim', method: 'model', confidence: 0.9 } },
      { event: 'composite_analyzed', timestamp: at(6), data: { index: 0, asked: ['pic1'] } },
      { event: 'early_stop_triggered', timestamp: at(7), data: { after_composite: 0, skipped: 5 } },
      { event: 'job_completed', timestamp: at(8) },
    ];
    server.use(http.get('*/jobs/job-9', () => HttpResponse.json(job({ job_id: 'job-9', status: 'done', logs }))));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const timeline = await screen.findByRole('list', { name: lang === 'tr' ? 'Zaman çizelgesi' : 'Timeline' });
    const text = timeline.textContent ?? '';
    for (const word of words) expect(text).toContain(word);
    expect(text).not.toMatch(internal);
    expect(text).not.toMatch(/\b(count|index|attempt|method|slug): /);
  });
});
