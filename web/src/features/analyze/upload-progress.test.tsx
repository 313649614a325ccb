import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { computeProgress } from '@/lib/upload';
import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

/** A stand-in XMLHttpRequest whose upload progress the test drives. */
class FakeXhr {
  static last: FakeXhr | null = null;
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  status = 0;
  responseText = '';
  headers: Record<string, string> = {};
  method = '';
  url = '';
  body: unknown = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(key: string, value: string) {
    this.headers[key] = value;
  }
  send(body: unknown) {
    this.body = body;
    FakeXhr.last = this;
  }
  abort() {
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total });
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeXhr.last = null;
});

describe('upload progress', () => {
  it('estimates the percentage and the seconds left', () => {
    expect(computeProgress(0, 1000, 0)).toEqual({ loaded: 0, total: 1000, percent: 0, secondsLeft: null });
    // 250 of 1000 bytes in 2 s → 750 bytes left at 125 B/s → 6 s
    expect(computeProgress(250, 1000, 2000)).toEqual({ loaded: 250, total: 1000, percent: 25, secondsLeft: 6 });
    expect(computeProgress(1000, 1000, 4000).percent).toBe(100);
  });

  it('shows a progress bar with percentage and time left while the video uploads, with the bearer token', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    server.use(http.get('*/jobs/job-9', () => HttpResponse.json({ job_id: 'job-9', status: 'queued', created_at: '', input_filename: 'a.mp4', model_used: null, estimated_cost: null, currency: 'USD', error: null, logs: [], result: null })));
    renderApp('/dashboard', { user: user() });
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await u.upload(await screen.findByLabelText('Video seçin'), new File([new Uint8Array(4000)], 'a.mp4', { type: 'video/mp4' }));
    await u.click(screen.getByRole('button', { name: 'Analizi başlat' }));
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toMatch(/\/analyze$/);
    expect(xhr.headers.Authorization).toBe('Bearer test-token');
    expect(xhr.body).toBeInstanceOf(FormData);

    await act(async () => {
      vi.advanceTimersByTime(2000);
      xhr.progress(1000, 4000);
    });
    const bar = screen.getByRole('progressbar', { name: 'Video yükleniyor' });
    expect(bar).toHaveAttribute('aria-valuenow', '25');
    expect(screen.getByText('%25 · yaklaşık 6 sn kaldı')).toBeInTheDocument();

    await act(async () => {
      xhr.respond(202, { job_id: 'job-9', status: 'queued' });
    });
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect((await screen.findAllByText('Sırada')).length).toBeGreaterThan(0);
  });
});
