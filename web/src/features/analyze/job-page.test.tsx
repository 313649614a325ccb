import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

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
    // why some items are not checked, and how an admin enables a vision model
    expect(screen.getByText(/görüntü modeli yapılandırılmamış/)).toBeInTheDocument();
    expect(screen.getByText(/OPENAI_BASE_URL, OPENAI_API_KEY ve OPENAI_MODEL/)).toBeInTheDocument();
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
});
