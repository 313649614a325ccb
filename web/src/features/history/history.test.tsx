import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { admin, job, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

const JOBS = [
  job({ job_id: 'a-111', status: 'done', input_filename: 'pole.mp4', model_used: 'gpt-4o-mini', estimated_cost: 0.01, job_type: 'ag_pano_bakim', job_display_name: 'AG pano bakımı' }),
  job({ job_id: 'b-222', status: 'error', input_filename: 'cabinet.mov', model_used: 'offline-analyzer', error: 'Video could not be read' }),
  job({ job_id: 'c-333', status: 'running', input_filename: 'truck.mp4', model_used: null }),
];

describe('history for users', () => {
  it('loads 30 jobs and searches client-side over id, file name, model and status', async () => {
    const limits: (string | null)[] = [];
    server.use(http.get('*/jobs', ({ request }) => (limits.push(new URL(request.url).searchParams.get('limit')), HttpResponse.json(JOBS))));
    renderApp('/dashboard/history', { user: user() });
    const list = await screen.findByRole('list', { name: 'İşler' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    expect(limits).toContain('30');
    expect(within(list).getByText('Video could not be read')).toBeInTheDocument();
    expect(within(list).getByText('Hata')).toBeInTheDocument();

    const u = userEvent.setup();
    const search = screen.getByRole('searchbox', { name: 'İşlerde ara' });
    await u.type(search, 'cabinet');
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    await u.clear(search);
    await u.type(search, 'B-222');
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    await u.clear(search);
    await u.type(search, 'gpt-4o');
    expect(within(list).getByText('pole.mp4')).toBeInTheDocument();
    await u.clear(search);
    await u.type(search, 'running');
    expect(within(list).getByText('truck.mp4')).toBeInTheDocument();
    await u.clear(search);
    await u.type(search, 'nothing-like-this');
    expect(screen.getByText('Aramanızla eşleşen iş yok.')).toBeInTheDocument();
    // what the row shows: the status in the current language, the job type's name
    await u.clear(search);
    await u.type(search, 'tamamlandı');
    const rows = () => within(screen.getByRole('list', { name: 'İşler' })).getAllByRole('listitem');
    expect(rows()).toHaveLength(1);
    expect(rows()[0]).toHaveTextContent('pole.mp4');
    await u.clear(search);
    await u.type(search, 'pano bak');
    expect(rows()).toHaveLength(1);
    await u.clear(search);
    await u.type(search, 'otomatik');
    expect(rows()).toHaveLength(2);
    await u.clear(search);
    await u.type(search, 'nothing-like-this');
    expect(screen.getByText('Aramanızla eşleşen iş yok.')).toBeInTheDocument();
    // users get no admin actions
    expect(screen.queryByRole('button', { name: /iptal et/ })).not.toBeInTheDocument();
  });

  it('shows each job type and links each row to the job’s own page', async () => {
    server.use(
      http.get('*/jobs', () => HttpResponse.json(JOBS)),
      http.get('*/jobs/a-111', () => HttpResponse.json({ ...JOBS[0], logs: [], result: null })),
    );
    renderApp('/dashboard/history', { user: user() });
    const list = await screen.findByRole('list', { name: 'İşler' });
    expect(within(list).getByText('AG pano bakımı')).toBeInTheDocument();
    expect(within(list).getAllByText('Otomatik')).toHaveLength(2);
    const link = within(list).getByRole('link', { name: 'pole.mp4' });
    expect(link).toHaveAttribute('href', '/dashboard/jobs/a-111');
    await userEvent.setup().click(link);
    expect(await screen.findByRole('heading', { level: 1, name: 'pole.mp4' })).toBeInTheDocument();
  });

  it('shows the load error and refreshes on demand', async () => {
    let calls = 0;
    server.use(http.get('*/jobs', () => (++calls === 1 ? HttpResponse.json({}, { status: 500 }) : HttpResponse.json(JOBS))));
    renderApp('/dashboard/history', { user: user() });
    expect(await screen.findByText('Analiz geçmişi yüklenemedi. Lütfen tekrar deneyin.')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Yenile' }));
    expect(await screen.findByText('pole.mp4')).toBeInTheDocument();
  });
});

describe('history for admins', () => {
  it('searches server-side with a trimmed q (sent only when not empty) and limit 50, showing the user', async () => {
    const queries: string[] = [];
    server.use(
      http.get('*/admin/jobs', ({ request }) => {
        queries.push(new URL(request.url).search);
        return HttpResponse.json(JOBS.map((j) => ({ ...j, user_email: 'ayse@example.com', user_full_name: 'Ayşe Yılmaz' })));
      }),
    );
    renderApp('/dashboard/history', { user: admin() });
    await screen.findByText('pole.mp4');
    expect(queries[0]).toBe('?limit=50');
    expect(screen.getAllByText('Ayşe Yılmaz · ayse@example.com')).toHaveLength(3);
    const u = userEvent.setup();
    await u.type(screen.getByRole('searchbox', { name: 'İşlerde ara' }), '  ayse  ');
    await waitFor(() => expect(queries).toContain('?limit=50&q=ayse'));
    await u.clear(screen.getByRole('searchbox', { name: 'İşlerde ara' }));
    await u.type(screen.getByRole('searchbox', { name: 'İşlerde ara' }), '   ');
    await new Promise((r) => setTimeout(r, 400));
    expect(queries.filter((q) => q.includes('q='))).toEqual(['?limit=50&q=ayse']);
  });

  it('cancels only queued/running jobs and deletes only the others, each after confirmation', async () => {
    const actions: string[] = [];
    server.use(
      http.get('*/admin/jobs', () => HttpResponse.json(JOBS)),
      http.post('*/admin/jobs/:id/cancel', ({ params }) => (actions.push(`cancel ${String(params.id)}`), HttpResponse.json({ job_id: params.id, status: 'cancelled' }, { status: 202 }))),
      http.delete('*/admin/jobs/:id', ({ params }) => (actions.push(`delete ${String(params.id)}`), new HttpResponse(null, { status: 204 }))),
    );
    renderApp('/dashboard/history', { user: admin() });
    await screen.findByText('pole.mp4');
    expect(screen.getByRole('button', { name: 'İşi iptal et (c-333)' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'İşi sil (c-333)' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'İşi sil (a-111)' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'İşi iptal et (a-111)' })).not.toBeInTheDocument();

    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'İşi iptal et (c-333)' }));
    const dialog = screen.getByRole('dialog', { name: 'Bu iş iptal edilsin mi?' });
    await u.click(within(dialog).getByRole('button', { name: 'Vazgeç' }));
    expect(actions).toEqual([]);
    await u.click(screen.getByRole('button', { name: 'İşi iptal et (c-333)' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'İşi iptal et' }));
    await waitFor(() => expect(actions).toEqual(['cancel c-333']));
    // the row says "cancelling…" at once, without a second cancel button
    expect(screen.getByText('İptal ediliyor…')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'İşi iptal et (c-333)' })).not.toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'İşi sil (a-111)' }));
    expect(screen.getByRole('dialog', { name: 'Bu iş silinsin mi?' })).toHaveTextContent('a-111');
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'İşi sil' }));
    await waitFor(() => expect(actions).toEqual(['cancel c-333', 'delete a-111']));
  });

  it('shows "cancelling…" until the list says the job has stopped', async () => {
    let stopped = false;
    server.use(
      http.get('*/admin/jobs', () => HttpResponse.json(JOBS.map((j) => (j.job_id === 'c-333' && stopped ? { ...j, status: 'cancelled' } : j)))),
      http.post('*/admin/jobs/:id/cancel', ({ params }) => HttpResponse.json({ job_id: params.id, status: 'running' }, { status: 202 })),
    );
    renderApp('/dashboard/history', { user: admin() });
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'İşi iptal et (c-333)' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'İşi iptal et' }));
    expect(await screen.findByText('İptal ediliyor…')).toBeInTheDocument();
    stopped = true;
    expect(await screen.findByText('İptal edildi', {}, { timeout: 6000 })).toBeInTheDocument();
    expect(screen.queryByText('İptal ediliyor…')).not.toBeInTheDocument();
  });

  it('reports a failed action', async () => {
    server.use(
      http.get('*/admin/jobs', () => HttpResponse.json(JOBS)),
      http.delete('*/admin/jobs/:id', () => HttpResponse.json({ detail: 'conflict' }, { status: 409 })),
    );
    renderApp('/dashboard/history', { user: admin() });
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'İşi sil (b-222)' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'İşi sil' }));
    expect(await screen.findByText('İşlem tamamlanamadı. Lütfen tekrar deneyin.')).toBeInTheDocument();
  });
});
