import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { doneJob, job, quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { JobDetail } from '@/types/api';

const TASKS = [
  { slug: 'ag_pano_bakim', name: 'LV panel maintenance' },
  { slug: 'yg_hat_calisma', name: '' },
];

function video(name = 'pole.mp4') {
  return new File([new Uint8Array(2048)], name, { type: 'video/mp4' });
}

async function chooseVideo(u: ReturnType<typeof userEvent.setup>, file = video()) {
  await u.upload(await screen.findByLabelText('Video seçin'), file);
}

beforeEach(() => {
  server.use(http.get('*/tasks', () => HttpResponse.json(TASKS)));
});

describe('analyze form', () => {
  it('manual auto-selects the first task, switching to auto clears it, and the payload says so', async () => {
    const payloads: unknown[] = [];
    server.use(
      http.post('*/analyze', async ({ request }) => {
        const form = await request.formData();
        payloads.push(JSON.parse(String(form.get('payload'))));
        expect(form.get('file')).toBeInstanceOf(File);
        return HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 });
      }),
      http.get('*/jobs/job-1', () => HttpResponse.json(job())),
    );
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup();
    await chooseVideo(u);
    expect(screen.getByText('pole.mp4')).toBeInTheDocument();
    expect(screen.getByText('2,0 KB')).toBeInTheDocument();

    expect(screen.getByRole('radio', { name: 'Otomatik' })).toBeChecked();
    expect(screen.queryByLabelText('Görev')).not.toBeInTheDocument();
    await u.click(screen.getByRole('radio', { name: 'Manuel' }));
    const select = await screen.findByLabelText('Görev');
    await waitFor(() => expect(select).toHaveValue('ag_pano_bakim'));
    // A task without a name gets one from its slug.
    expect(within(select).getByRole('option', { name: 'HV Hat Calisma' })).toBeInTheDocument();
    await u.selectOptions(select, 'yg_hat_calisma');
    await u.click(screen.getByRole('radio', { name: 'Otomatik' }));
    expect(screen.queryByLabelText('Görev')).not.toBeInTheDocument();
    await u.click(screen.getByRole('radio', { name: 'Manuel' }));
    await waitFor(() => expect(screen.getByLabelText('Görev')).toHaveValue('ag_pano_bakim'));

    // defaults: person sampling, 6 composites, 4 frames, dedupe on
    expect(screen.getByRole('radio', { name: 'Kişi odaklı' })).toBeChecked();
    await u.click(screen.getByRole('button', { name: 'Gelişmiş ayarlar' }));
    expect(screen.getByRole('slider', { name: /Kompozit sayısı/ })).toHaveValue('6');
    expect(screen.getByRole('slider', { name: /Kompozit sayısı/ })).toHaveAttribute('min', '1');
    expect(screen.getByRole('slider', { name: /Kompozit sayısı/ })).toHaveAttribute('max', '20');
    expect(screen.getByRole('slider', { name: /Kompozit başına kare/ })).toHaveValue('4');
    expect(screen.getByRole('slider', { name: /Kompozit başına kare/ })).toHaveAttribute('min', '2');
    expect(screen.getByRole('slider', { name: /Kompozit başına kare/ })).toHaveAttribute('max', '8');
    expect(screen.getByRole('checkbox', { name: /tekilleştir/ })).toBeChecked();
    // It says what it saves and what it costs: a missing item is not asked about again.
    expect(screen.getByRole('checkbox', { name: /tekilleştir/ })).toHaveAccessibleName('Eksik bulunan ekipmanı tekrar sorma (tekilleştir)');
    expect(screen.getByRole('checkbox', { name: /tekilleştir/ })).toHaveAccessibleDescription(/sonuna kadar izlemek için kapatın/);
    await u.click(screen.getByRole('radio', { name: 'Eşit aralıklı' }));
    await u.click(screen.getByRole('checkbox', { name: /tekilleştir/ }));

    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    await waitFor(() => expect(payloads).toHaveLength(1));
    expect(payloads[0]).toEqual({ job_type: 'ag_pano_bakim', sampling: 'uniform', target_composites: 6, frames_per_composite: 4, dedupe_by_equipment: false });
  });

  it('keeps start disabled without a video, and shows the quota message when analysis is not allowed', async () => {
    renderApp('/dashboard', { user: user({ quota: quota({ lifetime_used: 2, can_analyze: false }) }) });
    const u = userEvent.setup();
    expect(await screen.findByText('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.')).toBeInTheDocument();
    await chooseVideo(u);
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
    // instead of only "contact an admin": the way to the upgrade request
    expect(screen.getByRole('link', { name: 'Pro yükseltme talebi gönderin' })).toHaveAttribute('href', '/pricing#upgrade');
  });

  it('says how many analyses are left on which plan (translated)', async () => {
    renderApp('/dashboard', { user: user({ quota: quota({ lifetime_used: 1 }) }) });
    expect(await screen.findByText('Ücretsiz planında 1 analiz hakkınız kaldı.')).toBeInTheDocument();
  });

  it('opens the video picker with Enter as well as a click', async () => {
    renderApp('/dashboard', { user: user() });
    const picker = await screen.findByLabelText('Video seçin');
    let opened = 0;
    picker.addEventListener('click', () => opened++);
    picker.focus();
    fireEvent.keyDown(picker, { key: 'Enter' });
    expect(opened).toBe(1);
    fireEvent.keyDown(picker, { key: 'a' });
    expect(opened).toBe(1);
  });

  it('disables start until a video is chosen; remove clears it; non-video files are refused', async () => {
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup({ applyAccept: false });
    const start = await screen.findByRole('button', { name: 'Analizi başlat' });
    expect(start).toBeDisabled();
    expect(screen.getByLabelText('Video seçin')).toHaveAttribute('accept', 'video/*');
    await u.upload(screen.getByLabelText('Video seçin'), new File(['x'], 'notes.txt', { type: 'text/plain' }));
    expect(screen.getByText('Lütfen bir video dosyası seçin.')).toBeInTheDocument();
    expect(start).toBeDisabled();
    await chooseVideo(u);
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeEnabled();
    await u.click(screen.getByRole('button', { name: 'pole.mp4 dosyasını kaldır' }));
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
  });

  it('shows the server detail of a 403 and refreshes the user', async () => {
    let meCalls = 0;
    server.use(
      http.get('*/auth/me', () => (meCalls++, HttpResponse.json(user()))),
      http.post('*/analyze', () => HttpResponse.json({ detail: 'Günlük limitiniz doldu.' }, { status: 403 })),
    );
    renderApp('/dashboard', { token: 't' });
    const u = userEvent.setup();
    await chooseVideo(u);
    const before = meCalls;
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Günlük limitiniz doldu.')).toBeInTheDocument();
    await waitFor(() => expect(meCalls).toBeGreaterThan(before));
  });

  it('shows the quota message on a 403 without detail, and the start error otherwise', async () => {
    server.use(http.post('*/analyze', () => new HttpResponse(null, { status: 403 })));
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup();
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.')).toBeInTheDocument();

    server.use(http.post('*/analyze', () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Analiz başlatılamadı. Lütfen tekrar deneyin.')).toBeInTheDocument();
  });

  it('says so when the server cannot read the file as a video (415) or it is too large (413); asks in the UI language', async () => {
    const languages: (string | null)[] = [];
    server.use(
      http.post('*/analyze', ({ request }) => {
        languages.push(request.headers.get('accept-language'));
        return HttpResponse.json({ detail: 'This file is not a video we can read.' }, { status: 415 });
      }),
    );
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup();
    await chooseVideo(u, video('not-really.mp4'));
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Bu dosya okunabilen bir video değil. Lütfen MP4, MOV, MKV ya da WebM video yükleyin.')).toBeInTheDocument();
    expect(languages).toEqual(['tr']);

    server.use(http.post('*/analyze', () => HttpResponse.json({ detail: 'The video is larger than the limit of 2 GB.' }, { status: 413 })));
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Video yükleme sınırından büyük. Lütfen daha kısa ya da daha küçük bir video yükleyin.')).toBeInTheDocument();
  });

  it('disables start together with a quota refusal (403), before the refreshed user arrives', async () => {
    let releaseMe: () => void = () => undefined;
    let refused = false;
    server.use(
      http.get('*/auth/me', async () => {
        if (refused) await new Promise<void>((resolve) => (releaseMe = resolve));
        return HttpResponse.json(refused ? user({ quota: quota({ lifetime_used: 2, can_analyze: false }) }) : user());
      }),
      http.post('*/analyze', () => ((refused = true), HttpResponse.json({ detail: 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.' }, { status: 403 }))),
    );
    renderApp('/dashboard', { token: 't' });
    const u = userEvent.setup();
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.')).toBeInTheDocument();
    // The refreshed user is still on its way: the button is already disabled.
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
    releaseMe();
    await waitFor(() => expect(screen.getAllByText('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.')).toHaveLength(1));
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
  });

  it('shows the quota message once when a refused start (403) is followed by the quota gate', async () => {
    // The page still believes an analysis is left; the server knows better.
    let refused = false;
    server.use(
      http.get('*/auth/me', () => HttpResponse.json(refused ? user({ quota: quota({ lifetime_used: 2, can_analyze: false }) }) : user())),
      http.post('*/analyze', () => ((refused = true), HttpResponse.json({ detail: 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.' }, { status: 403 }))),
    );
    renderApp('/dashboard', { token: 't' });
    const u = userEvent.setup();
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled());
    expect(screen.getAllByText('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.')).toHaveLength(1);
  });
});

describe('job polling', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function scriptedJob(states: (JobDetail | 'fail')[]) {
    const calls: number[] = [];
    server.use(
      http.get('*/jobs/job-1', () => {
        calls.push(Date.now());
        const next = states.length > 1 ? states.shift()! : states[0]!;
        return next === 'fail' ? HttpResponse.json({ detail: 'down' }, { status: 503 }) : HttpResponse.json(next);
      }),
    );
    return calls;
  }

  it('Ready → Queued → polls every 2500 ms → Done; keeps the result, refreshes the quota, stops polling', async () => {
    let meCalls = 0;
    server.use(
      http.get('*/auth/me', () => (meCalls++, HttpResponse.json(user()))),
      http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })),
      http.get('*/jobs/job-1/evidence/0', () => new HttpResponse(new Uint8Array([1, 2, 3]), { headers: { 'Content-Type': 'image/jpeg' } })),
    );
    const calls = scriptedJob([job(), job({ status: 'running', logs: [...job().logs, { event: 'job_started', timestamp: '2025-03-04T10:00:05Z' }] }), doneJob()]);
    renderApp('/dashboard', { token: 't' });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const panel = await screen.findByRole('region', { name: 'Analiz' });
    expect(within(panel).getByText('Hazır')).toBeInTheDocument();

    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(screen.getAllByText('Sırada').length).toBeGreaterThan(0);

    const meBefore = meCalls;
    await act(() => vi.advanceTimersByTimeAsync(2500));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(await screen.findByText('Çalışıyor')).toBeInTheDocument();
    expect(screen.getByText('İş başladı')).toBeInTheDocument();
    // progress within the step
    expect(screen.getByRole('progressbar', { name: 'Videodan kareler örnekleniyor' })).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(2500));
    await waitFor(() => expect(calls).toHaveLength(3));
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(2500);

    const result = await screen.findByRole('region', { name: 'LV panel maintenance' });
    expect(within(result).getByText('Tamamlandı')).toBeInTheDocument();
    const table = within(result).getByRole('table');
    expect(within(table).getByRole('row', { name: /Helmet.*Mevcut/ })).toBeInTheDocument();
    expect(within(table).getByRole('row', { name: /Insulating gloves.*Eksik/ })).toBeInTheDocument();
    expect(within(table).getByRole('row', { name: /Voltage tester.*Kontrol edilmedi/ })).toBeInTheDocument();
    const missing = within(result).getByRole('region', { name: /Eksik/ });
    expect(within(missing).getByText('Insulating gloves')).toBeInTheDocument();
    const notChecked = within(result).getByRole('region', { name: 'Kontrol edilmedi' });
    expect(within(notChecked).getByText('Voltage tester')).toBeInTheDocument();
    expect(within(result).getByText('1 dk 25 sn')).toBeInTheDocument();
    expect(within(result).getByText('6')).toBeInTheDocument();
    expect(within(result).getByText('0,0123 USD')).toBeInTheDocument();
    expect(await within(result).findByRole('img', { name: 'Helmet, 0:03 anında' })).toHaveAttribute('src', expect.stringMatching(/^blob:/));

    // free plan: JSON download disabled with the upgrade hint
    expect(within(result).getByRole('button', { name: 'JSON indir' })).toBeDisabled();
    // the same video is not sent again by accident: a new video or an explicit "analyze again"
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
    await u.click(screen.getByRole('button', { name: 'Yeniden analiz et' }));
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeEnabled();
    // the job's own page is one click away
    expect(within(result).getByRole('link', { name: 'Raporu aç' })).toHaveAttribute('href', expect.stringMatching(/^\/dashboard\/jobs\/.+/));
    expect(within(result).getByText('PDF rapor ve JSON indirme Pro ve Kurumsal planlarda kullanılabilir.')).toBeInTheDocument();

    await waitFor(() => expect(meCalls).toBeGreaterThan(meBefore));
    expect(screen.getByRole('region', { name: 'Son analizler' })).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(calls).toHaveLength(3);

    // New Analysis resets form and results
    await u.click(within(result).getByRole('button', { name: 'Yeni analiz' }));
    expect(await screen.findByText('Hazır')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Analizi başlat' })).toBeDisabled();
  });

  it('shows the poll failure and retries after 5000 ms', async () => {
    server.use(http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })));
    const calls = scriptedJob(['fail', job({ status: 'running' })]);
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('İş durumu yenilenemedi. Lütfen tekrar deneyin.')).toBeInTheDocument();
    expect(calls).toHaveLength(1);

    await act(() => vi.advanceTimersByTimeAsync(4000));
    expect(calls).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1100));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(await screen.findByText('Çalışıyor')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('İş durumu yenilenemedi. Lütfen tekrar deneyin.')).not.toBeInTheDocument());
  });

  it('shows the error insights of a failed job and the stop text of a cancelled one', async () => {
    server.use(http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })));
    scriptedJob([job({ status: 'error', error: 'ffmpeg could not read the video' })]);
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('İş bir hatayla sonlandı: ffmpeg could not read the video')).toBeInTheDocument();
  });

  it('shows the administrator-stop text for a cancelled job', async () => {
    server.use(http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })));
    scriptedJob([job({ status: 'cancelled', error: null })]);
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByText('Bu iş bir yönetici tarafından durduruldu.')).toBeInTheDocument();
    expect(screen.getAllByText('İptal edildi').length).toBeGreaterThan(0);
  });

  it('resumes the latest job on opening when it is still running', async () => {
    let limit: string | null = null;
    server.use(
      http.get('*/jobs', ({ request }) => {
        limit = new URL(request.url).searchParams.get('limit');
        return HttpResponse.json([job({ status: 'running' })]);
      }),
    );
    const calls = scriptedJob([job({ status: 'running' })]);
    renderApp('/dashboard', { user: user() });
    expect(await screen.findByText('Çalışıyor')).toBeInTheDocument();
    expect(limit).toBe('1');
    expect(calls.length).toBeGreaterThanOrEqual(1);
  });

  it('does not resume a finished latest job', async () => {
    server.use(http.get('*/jobs', () => HttpResponse.json([job({ status: 'done' })])));
    const calls = scriptedJob([doneJob()]);
    renderApp('/dashboard', { user: user() });
    await screen.findByRole('button', { name: 'Analizi başlat' });
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(screen.getByText('Hazır')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('enables Download JSON for the pro plan (any case)', async () => {
    server.use(
      http.post('*/analyze', () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })),
      http.get('*/jobs/job-1/evidence/0', () => new HttpResponse(new Uint8Array([1]), { headers: { 'Content-Type': 'image/jpeg' } })),
    );
    scriptedJob([doneJob()]);
    renderApp('/dashboard', { user: user({ quota: quota({ plan_name: 'PRO', lifetime_limit: null }) }) });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await chooseVideo(u);
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    expect(await screen.findByRole('button', { name: 'JSON indir' })).toBeEnabled();
    expect(screen.queryByText('PDF rapor ve JSON indirme Pro ve Kurumsal planlarda kullanılabilir.')).not.toBeInTheDocument();
  });
});
