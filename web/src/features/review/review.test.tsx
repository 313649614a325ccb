import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { reviewFindings } from '@/features/review/model/findings';
import { doneJob, job as listJob, quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { JobDetail, JobResult, Org, WorkerItem } from '@/types/api';

const ORG: Org = { id: 'org-1', name: 'Boğaziçi Elektrik', role: 'manager', created_at: '2026-03-01T10:00:00.000Z', member_count: 2, quota: quota() };

const HAT = 'pic1,pic2,pic3';
const VEST = 'pic23,pic24';
const item = (verdict: WorkerItem['verdict'], confidence: number | null, extra: Partial<WorkerItem> = {}): WorkerItem => ({ verdict, frames_worn: 0, frames_without: 0, confidence, ...extra });
const image = () => new HttpResponse(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), { headers: { 'Content-Type': 'image/jpeg' } });

/** Worker 1 without a hard hat (a violation, 90 % sure), in a vest (60 %); worker 2 in both (95 %); worker 3 could not be told. */
function result(overrides: Partial<JobResult> = {}): JobResult {
  return {
    ...doneJob().result!,
    required_groups: [HAT.split(','), VEST.split(',')],
    required_groups_name: ['Baret', 'Yelek'],
    missing_groups: [HAT.split(',')],
    missing_groups_name: ['Baret'],
    workers: [
      { worker: 1, first_sec: 2, last_sec: 9, frames: 5, items: { [HAT]: item('missing', 0.9), [VEST]: item('worn', 0.6) } },
      { worker: 2, first_sec: 3, last_sec: 12, frames: 6, items: { [HAT]: item('worn', 0.95), [VEST]: item('worn', 0.95) } },
      { worker: 3, first_sec: 20, last_sec: 21, frames: 2, items: { [HAT]: item('cannot_tell', null), [VEST]: item('cannot_tell', null) } },
    ],
    violations: [{ group: HAT.split(','), group_name: 'Baret', worker: 1, time_sec: 2, end_sec: 9, frames: 4, evidence_sec: 5, confidence: 0.9, box: { x: 0, y: 0, w: 1, h: 1 }, image_url: '/jobs/job-9/violations/0' }],
    missing_evidence: [{ group: HAT.split(','), violation: 0, image_url: '/jobs/job-9/violations/0' }],
    evidence: [],
    ...overrides,
  };
}

describe('the findings to review', () => {
  it('are every worker and item, the least sure first, cannot tell included, with the crop of a violation', () => {
    const findings = reviewFindings(result());
    expect(findings.map((f) => [f.worker, f.kind, f.verdict])).toEqual([
      [3, 'hat', 'cannot_tell'],
      [3, 'vest', 'cannot_tell'],
      [1, 'vest', 'worn'],
      [1, 'hat', 'missing'],
      [2, 'hat', 'worn'],
      [2, 'vest', 'worn'],
    ]);
    expect(findings.find((f) => f.worker === 1 && f.kind === 'hat')).toMatchObject({ groupName: 'Baret', imageUrl: '/jobs/job-9/violations/0', confidence: 0.9 });
    expect(findings.find((f) => f.worker === 2 && f.kind === 'hat')?.imageUrl).toBeNull();
  });
});

describe('the review screen', () => {
  function serve(job: JobDetail) {
    const posted: unknown[] = [];
    const state = { job };
    server.use(
      http.get('*/jobs/job-9', () => HttpResponse.json(state.job)),
      http.get('*/jobs/job-9/violations/0', image),
      http.post('*/jobs/job-9/reviews', async ({ request }) => {
        posted.push(await request.json());
        return HttpResponse.json({ job_id: 'job-9', violation_count: 0, reviews: [], history: [] });
      }),
    );
    return { posted, state };
  }

  it('a manager reviews with the keyboard: 1–4 choose on the focused card, the focus moves on, j/k move between cards', async () => {
    const { posted } = serve(doneJob({ job_id: 'job-9', may_review: true, result: result() }));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    const cards = within(list).getAllByRole('article');
    expect(cards).toHaveLength(6);
    expect(within(cards[0]!).getByRole('heading').textContent).toBe('3. çalışan · Baret');
    expect(within(cards[3]!).getByRole('button', { name: 'Baret yok' })).toHaveAttribute('aria-keyshortcuts', '3');
    expect(within(cards[2]!).getByRole('button', { name: 'Yelek giyili' })).toBeInTheDocument();
    expect(screen.getByText('6 bulgudan 0 tanesi incelendi')).toBeInTheDocument();

    const u = userEvent.setup();
    cards[0]!.focus();
    await u.keyboard('j');
    expect(cards[1]).toHaveFocus();
    await u.keyboard('k');
    expect(cards[0]).toHaveFocus();
    await u.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(cards[3]).toHaveFocus();
    // Worker 1 wore the hard hat after all: 2 = worn; the focus moves to the next card.
    await u.keyboard('2');
    await waitFor(() => expect(posted).toEqual([{ worker: 1, group: HAT, verdict: 'worn' }]));
    await waitFor(() => expect(cards[4]).toHaveFocus());
    await u.keyboard('1');
    await waitFor(() => expect(posted).toHaveLength(2));
    expect(posted[1]).toEqual({ worker: 2, group: HAT, verdict: 'confirmed' });
    // Worker 3 is a reflection: "not a worker" reviews each of their items.
    cards[0]!.focus();
    await u.keyboard('4');
    await waitFor(() => expect(posted).toHaveLength(4));
    expect(posted.slice(2)).toEqual([
      { worker: 3, group: HAT, verdict: 'not_a_worker' },
      { worker: 3, group: VEST, verdict: 'not_a_worker' },
    ]);
  });

  it('tells a keyboard its keys, and a phone (a touch screen) only its buttons', async () => {
    serve(doneJob({ job_id: 'job-9', may_review: true, result: result() }));
    const desk = renderApp('/dashboard/jobs/job-9', { user: user() });
    await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    expect(screen.getByText(/^Tuşlar: j \/ k/)).toBeInTheDocument();
    desk.unmount();
    const matchMedia = window.matchMedia;
    window.matchMedia = ((query: string) => ({ ...matchMedia(query), matches: query.includes('pointer: coarse') })) as typeof window.matchMedia;
    try {
      renderApp('/dashboard/jobs/job-9', { user: user() });
      const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
      expect(screen.queryByText(/^Tuşlar:/)).toBeNull();
      expect(within(within(list).getAllByRole('article')[3]!).getByRole('button', { name: 'Baret yok' })).toBeInTheDocument();
    } finally {
      window.matchMedia = matchMedia;
    }
  });

  it('opens the whole frame of a violation with f (fetched when opened), and keys in the dialog review nothing', async () => {
    const { posted } = serve(doneJob({ job_id: 'job-9', may_review: true, result: result() }));
    const frames: string[] = [];
    server.use(http.get('*/jobs/job-9/violations/0/frame', ({ request }) => (frames.push(new URL(request.url).pathname), image())));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    const card = within(list).getAllByRole('article')[3]!;
    expect(frames).toEqual([]);
    expect(within(card).getByRole('button', { name: 'Karenin tamamı — 1. çalışan · Baret' })).toHaveAttribute('aria-keyshortcuts', 'f');
    const u = userEvent.setup();
    card.focus();
    await u.keyboard('f');
    const dialog = await screen.findByRole('dialog', { name: '1. çalışan · Baret: karenin tamamı' });
    expect(await within(dialog).findByRole('img', { name: 'Karenin tamamı, çalışan çerçeve içinde: 1. çalışan · Baret' })).toBeInTheDocument();
    expect(frames).toEqual(['/jobs/job-9/violations/0/frame']);
    await u.keyboard('1');
    await new Promise((r) => setTimeout(r, 100));
    expect(posted).toEqual([]);
  });

  it('shows who reviewed a finding and what counts now; the violation dismissed leaves the missing list and is listed apart', async () => {
    const review = { verdict: 'worn' as const, by: 'm1', by_name: 'Mehmet Müdür', at: '2026-03-02T10:00:00.000Z', note: null };
    const reviewed = result({
      missing_groups: [],
      missing_groups_name: [],
      missing_evidence: [],
      workers: result().workers!.map((w) => ({
        ...w,
        items: Object.fromEntries(Object.entries(w.items).map(([g, it]) => [g, w.worker === 1 && g === HAT ? { ...it, reviewed_verdict: 'worn' as const, review } : { ...it, reviewed_verdict: it.verdict, review: null }])),
      })),
      violations: [{ ...result().violations![0]!, dismissed: true, reviewed_verdict: 'worn', review }],
    });
    serve(doneJob({ job_id: 'job-9', may_review: true, result: reviewed }));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    const card = within(list).getAllByRole('article')[3]!;
    expect(card).toHaveTextContent(/Mehmet Müdür inceledi \(.+\): Baret takılı/);
    expect(card).toHaveTextContent('Artık sayılan: Kullanıyor');
    expect(within(card).getByRole('button', { name: 'Baret takılı' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText('6 bulgudan 1 tanesi incelendi')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'İhlaller' })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'İncelemede geçersiz sayılanlar' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: /^Eksik 0$/ })).toBeInTheDocument();
  });

  it('shows a crew member no review controls, and the server’s refusal when a review is refused', async () => {
    serve(doneJob({ job_id: 'job-9', may_review: false, result: result() }));
    const { unmount } = renderApp('/dashboard/jobs/job-9', { user: user() });
    await screen.findByRole('heading', { name: 'İhlaller' });
    expect(screen.queryByRole('list', { name: 'İncelenecek bulgular' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Doğru' })).not.toBeInTheDocument();
    unmount();

    serve(doneJob({ job_id: 'job-9', may_review: true, result: result() }));
    server.use(http.post('*/jobs/job-9/reviews', () => HttpResponse.json({ detail: 'Yalnızca işin kuruluşunun yöneticileri inceleyebilir.' }, { status: 403 })));
    renderApp('/dashboard/jobs/job-9', { user: user() });
    const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    const card = within(list).getAllByRole('article')[0]!;
    await userEvent.setup().click(within(card).getByRole('button', { name: 'Doğru' }));
    expect(await within(card).findByText('Yalnızca işin kuruluşunun yöneticileri inceleyebilir.')).toBeInTheDocument();
  });
});

describe('the team’s review queue', () => {
  it('a manager sees on the dashboard how many jobs wait for review, and the link opens the queue (reviewed=false)', async () => {
    const asked: string[] = [];
    server.use(
      http.get('*/orgs/current', () => HttpResponse.json(ORG)),
      http.get('*/orgs/:id/members', () => HttpResponse.json([])),
      http.get('*/orgs/:id/sites', () => HttpResponse.json([])),
      http.get('*/orgs/:id/crews', () => HttpResponse.json([])),
      http.get('*/jobs', ({ request }) => {
        const url = new URL(request.url);
        asked.push(url.search);
        return HttpResponse.json(url.searchParams.get('reviewed') === 'false' ? [listJob({ job_id: 'q-1', status: 'done', input_filename: 'direk.mp4', user_email: 'ekip@example.com' })] : []);
      }),
    );
    renderApp('/dashboard', { user: user() });
    const card = await screen.findByRole('region', { name: 'İncelenecek bulgular' });
    expect(await within(card).findByText('Kuruluşunuzun 1 işinde incelenmemiş bulgu var.')).toBeInTheDocument();
    await userEvent.setup().click(within(card).getByRole('link', { name: 'İnceleme kuyruğunu aç' }));
    expect(await screen.findByRole('link', { name: /direk\.mp4/ })).toBeInTheDocument();
    expect(screen.getByLabelText('İnceleme')).toHaveValue('false');
    expect(asked.filter((q) => q.includes('scope=org')).every((q) => q.includes('reviewed=false'))).toBe(true);
  });

  it('a manager downloads the reviewed findings as a labelled set (GET /orgs/{id}/reviews/export); a refusal is said', async () => {
    const asked: string[] = [];
    let status = 200;
    server.use(
      http.get('*/orgs/current', () => HttpResponse.json(ORG)),
      http.get('*/orgs/:id/sites', () => HttpResponse.json([])),
      http.get('*/orgs/:id/crews', () => HttpResponse.json([])),
      http.get('*/jobs', () => HttpResponse.json([])),
      http.get('*/orgs/:id/reviews/export', ({ params }) => {
        asked.push(String(params.id));
        return status === 200 ? new HttpResponse(new Uint8Array([0x50, 0x4b, 0x05, 0x06]), { headers: { 'Content-Type': 'application/zip' } }) : HttpResponse.json({ code: 'forbidden' }, { status });
      }),
    );
    const created: Blob[] = [];
    const [create, revoke] = [URL.createObjectURL, URL.revokeObjectURL];
    URL.createObjectURL = (blob: Blob) => (created.push(blob), 'blob:test');
    URL.revokeObjectURL = () => undefined;
    try {
      renderApp('/dashboard', { user: user() });
      const card = await screen.findByRole('region', { name: 'İncelenecek bulgular' });
      const button = within(card).getByRole('button', { name: 'İncelenmiş bulguları dışa aktar (ZIP)' });
      await userEvent.setup().click(button);
      await waitFor(() => expect(created).toHaveLength(1));
      expect(asked).toEqual(['org-1']);
      status = 403;
      await userEvent.setup().click(button);
      expect(await within(card).findByRole('alert')).toHaveTextContent('Dışa aktarma indirilemedi. Yeniden deneyin.');
    } finally {
      URL.createObjectURL = create;
      URL.revokeObjectURL = revoke;
    }
  });

  it('a crew member sees no queue on the dashboard', async () => {
    server.use(http.get('*/orgs/current', () => HttpResponse.json({ ...ORG, role: 'member' })));
    renderApp('/dashboard', { user: user() });
    await screen.findByRole('heading', { level: 1 });
    expect(screen.queryByRole('region', { name: 'İncelenecek bulgular' })).not.toBeInTheDocument();
  });

  it('opened from a notice (#review), the first finding not yet reviewed has the focus', async () => {
    server.use(
      http.get('*/jobs/job-9', () => HttpResponse.json(doneJob({ job_id: 'job-9', may_review: true, result: result() }))),
      http.get('*/jobs/job-9/violations/0', image),
    );
    renderApp('/dashboard/jobs/job-9#review', { user: user() });
    const list = await screen.findByRole('list', { name: 'İncelenecek bulgular' });
    await waitFor(() => expect(within(list).getAllByRole('article')[0]).toHaveFocus());
  });
});
