import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { enablePush } from '@/features/notifications/api/notifications';
import { i18n } from '@/lib/i18n';
import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

const items = [
  { id: 'e1:u1', kind: 'report_ready', title: 'Rapor hazır', body: '“direk.mp4” videosunun analizi tamamlandı: 2 ihlal bulundu.', job_id: 'job-1', url: '/dashboard/jobs/job-1', read: false, created_at: '2026-05-04T08:00:00.000Z' },
  { id: 'e0:u1', kind: 'quota', title: 'Kullanım limitiniz azalıyor', body: "toplam limitinizin %80'ini kullandınız (8/10).", job_id: null, url: '/dashboard/profile', read: true, created_at: '2026-05-03T08:00:00.000Z' },
];

describe('the notification bell', () => {
  it('shows the unread count, lists notifications, marks one read when opened and all read on demand', async () => {
    const read: string[] = [];
    let readAll = 0;
    server.use(
      http.get('*/notifications', () => HttpResponse.json({ unread: 1, items })),
      http.post('*/notifications/:id/read', ({ params }) => (read.push(String(params.id)), new HttpResponse(null, { status: 204 }))),
      http.post('*/notifications/read-all', () => (readAll++, HttpResponse.json({ updated: 1 }))),
      http.get('*/jobs/job-1', () => HttpResponse.json({ job_id: 'job-1', status: 'done', logs: [], result: null, created_at: '2026-05-04T08:00:00.000Z', input_filename: 'direk.mp4' })),
    );
    const { router } = renderApp('/dashboard/history', { user: user() });
    const u = userEvent.setup();
    const bell = await screen.findByRole('button', { name: 'Bildirimler: 1 okunmamış' });
    expect(within(bell).getByText('1')).toBeInTheDocument();
    await u.click(bell);
    const panel = screen.getByRole('region', { name: 'Bildirimler' });
    expect(within(panel).getByText('Rapor hazır')).toBeInTheDocument();
    expect(within(panel).getByText(/2 ihlal bulundu/)).toBeInTheDocument();
    await u.click(within(panel).getByRole('button', { name: 'Tümünü okundu işaretle' }));
    await waitFor(() => expect(readAll).toBe(1));
    await u.click(within(panel).getByText('Rapor hazır'));
    await waitFor(() => expect(read).toEqual(['e1:u1']));
    expect(router.state.location.pathname).toBe('/dashboard/jobs/job-1');
  });

  it('has no count when everything is read', async () => {
    renderApp('/dashboard/history', { user: user() });
    expect(await screen.findByRole('button', { name: 'Bildirimler' })).toBeInTheDocument();
  });
});

describe('notification preferences on the profile page', () => {
  it('shows kinds × channels with quota e-mails off by default, and saves a change', async () => {
    const sent: unknown[] = [];
    server.use(
      http.put('*/notifications/preferences', async ({ request }) => {
        const body = await request.json();
        sent.push(body);
        return HttpResponse.json({
          language: 'tr',
          preferences: { report_ready: { email: false, push: true, in_app: true }, analysis_failed: { email: true, push: true, in_app: true }, quota: { email: false, push: true, in_app: true } },
        });
      }),
    );
    renderApp('/dashboard/profile', { user: user() });
    const u = userEvent.setup();
    const quotaMail = await screen.findByRole('checkbox', { name: 'Kullanım limiti (%80 / doldu) — E-posta' });
    expect(quotaMail).not.toBeChecked();
    const reportMail = screen.getByRole('checkbox', { name: 'Rapor hazır — E-posta' });
    expect(reportMail).toBeChecked();
    await u.click(reportMail);
    await waitFor(() => expect(sent).toContainEqual({ preferences: { report_ready: { email: false } } }));
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Rapor hazır — E-posta' })).not.toBeChecked());
  });
});

describe('e-mail confirmation banner', () => {
  it('asks an unverified user to confirm, and sends the link again', async () => {
    let resent = 0;
    server.use(http.post('*/auth/verify-email/resend', () => (resent++, HttpResponse.json({ status: 'accepted' }, { status: 202 }))));
    renderApp('/dashboard/history', { user: user({ email_verified: false }) });
    const u = userEvent.setup();
    expect(await screen.findByText(/Lütfen e-posta adresinizi .* doğrulayın/)).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Bağlantıyı yeniden gönder' }));
    expect(await screen.findByText('Gönderildi. Gelen kutunuza bakın.')).toBeInTheDocument();
    expect(resent).toBe(1);
  });

  it('is not shown once the address is confirmed', async () => {
    renderApp('/dashboard/history', { user: user({ email_verified: true }) });
    await screen.findByRole('button', { name: 'Bildirimler' });
    expect(screen.queryByText(/Lütfen e-posta adresinizi/)).not.toBeInTheDocument();
  });
});

describe('forgotten password', () => {
  it('links from the login page, and says the same thing whatever the address', async () => {
    const asked: unknown[] = [];
    server.use(http.post('*/auth/password-reset', async ({ request }) => (asked.push(await request.json()), HttpResponse.json({ status: 'accepted' }, { status: 202 }))));
    const { router } = renderApp('/login');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('link', { name: 'Şifremi unuttum' }));
    expect(router.state.location.pathname).toBe('/forgot-password');
    await screen.findByRole('heading', { name: 'Şifrenizi mi unuttunuz?' });
    await u.type(screen.getByLabelText('E-posta'), 'ayse@example.com');
    await u.click(screen.getByRole('button', { name: 'Bağlantıyı gönder' }));
    expect(await screen.findByText(/Bu adrese ait bir hesap varsa bağlantıyı gönderdik/)).toBeInTheDocument();
    expect(asked).toEqual([{ email: 'ayse@example.com' }]);
  });

  it('sets a new password with the link, and says when the link is no longer valid', async () => {
    const confirmed: unknown[] = [];
    server.use(
      http.post('*/auth/password-reset/confirm', async ({ request }) => {
        const body = (await request.json()) as { token: string };
        confirmed.push(body);
        return body.token === 'good-token-123'
          ? new HttpResponse(null, { status: 204 })
          : HttpResponse.json({ detail: 'Bu bağlantı geçerli değil veya süresi doldu. Lütfen yeni bir bağlantı isteyin.', code: 'invalid_token' }, { status: 400 });
      }),
    );
    renderApp('/reset-password?token=good-token-123');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Yeni şifre'), 'new password 2');
    await u.type(screen.getByLabelText('Şifre (tekrar)'), 'new password 3');
    await u.click(screen.getByRole('button', { name: 'Yeni şifreyi kaydet' }));
    expect(await screen.findByText('Şifreler eşleşmiyor.')).toBeInTheDocument();
    await u.clear(screen.getByLabelText('Şifre (tekrar)'));
    await u.type(screen.getByLabelText('Şifre (tekrar)'), 'new password 2');
    // Revoking every API key is offered, ticked (the reset after a suspected compromise), and said what it does.
    const revoke = screen.getByRole('checkbox', { name: 'Tüm API anahtarlarımı da iptal et' });
    expect(revoke).toBeChecked();
    expect(revoke).toHaveAccessibleDescription(/betikler, yeni anahtar oluşturana kadar durur/);
    await u.click(screen.getByRole('button', { name: 'Yeni şifreyi kaydet' }));
    expect(await screen.findByText(/Şifreniz değiştirildi ve tüm API anahtarlarınız iptal edildi/)).toBeInTheDocument();
    expect(confirmed).toEqual([{ token: 'good-token-123', password: 'new password 2', revoke_api_keys: true }]);
  });

  it('keeps the API keys when the box is unticked (English)', async () => {
    const confirmed: unknown[] = [];
    server.use(http.post('*/auth/password-reset/confirm', async ({ request }) => (confirmed.push(await request.json()), new HttpResponse(null, { status: 204 }))));
    await i18n.changeLanguage('en');
    try {
      renderApp('/reset-password?token=good-token-123');
      const u = userEvent.setup();
      await u.type(await screen.findByLabelText('New password'), 'new password 2');
      await u.type(screen.getByLabelText(/Confirm password/i), 'new password 2');
      await u.click(screen.getByRole('checkbox', { name: 'Also revoke all my API keys' }));
      await u.click(screen.getByRole('button', { name: 'Save the new password' }));
      expect(await screen.findByText('Your password was changed. Log in with your new password.')).toBeInTheDocument();
      expect(confirmed).toEqual([{ token: 'good-token-123', password: 'new password 2', revoke_api_keys: false }]);
    } finally {
      await i18n.changeLanguage('tr');
    }
  });

  it('shows the server reason for a used or expired link', async () => {
    server.use(http.post('*/auth/password-reset/confirm', () => HttpResponse.json({ detail: 'Bu bağlantı geçerli değil veya süresi doldu. Lütfen yeni bir bağlantı isteyin.', code: 'invalid_token' }, { status: 400 })));
    renderApp('/reset-password?token=used-token-456');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Yeni şifre'), 'new password 2');
    await u.type(screen.getByLabelText('Şifre (tekrar)'), 'new password 2');
    await u.click(screen.getByRole('button', { name: 'Yeni şifreyi kaydet' }));
    expect(await screen.findByText(/Bu bağlantı geçerli değil veya süresi doldu/)).toBeInTheDocument();
  });
});

describe('Web Push in a browser another account registered', () => {
  it('takes a new subscription for this account when the server says the endpoint is taken', async () => {
    const registered: string[] = [];
    let unsubscribed = 0;
    const subscription = (endpoint: string) => ({
      endpoint,
      toJSON: () => ({ endpoint, keys: { p256dh: 'p', auth: 'a' } }),
      unsubscribe: async () => (unsubscribed++, true),
    });
    let current: ReturnType<typeof subscription> | null = subscription('https://push.example/old-of-other-account');
    const pushManager = { getSubscription: async () => current, subscribe: async () => (current = subscription('https://push.example/new')) };
    vi.stubGlobal('Notification', { requestPermission: async () => 'granted', permission: 'granted' });
    vi.stubGlobal('PushManager', function PushManager() {});
    Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: { ready: Promise.resolve({ pushManager }), getRegistration: async () => ({ pushManager }) } });
    server.use(
      http.get('*/push/vapid-public-key', () => HttpResponse.json({ key: 'BA' })),
      http.post('*/push/subscriptions', async ({ request }) => {
        const { endpoint } = (await request.json()) as { endpoint: string };
        registered.push(endpoint);
        return endpoint.endsWith('old-of-other-account')
          ? HttpResponse.json({ status: 409, code: 'push_endpoint_taken', title: 'Conflict', type: 'about:blank', detail: 'taken' }, { status: 409 })
          : HttpResponse.json({ id: 'x' }, { status: 201 });
      }),
    );
    try {
      expect(await enablePush()).toBe(true);
      expect(registered).toEqual(['https://push.example/old-of-other-account', 'https://push.example/new']);
      expect(unsubscribed).toBe(1);
    } finally {
      vi.unstubAllGlobals();
      Reflect.deleteProperty(navigator, 'serviceWorker');
    }
  });
});
