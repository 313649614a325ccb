import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { STORAGE_KEYS } from '@/lib/storage';
import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('login form', () => {
  it('requires email and password before calling the server', async () => {
    let calls = 0;
    server.use(http.post('*/auth/login', () => (calls++, HttpResponse.json({ access_token: 'x' }))));
    renderApp('/login');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Giriş yap' }));
    expect(screen.getByText('Lütfen e-posta adresinizi girin.')).toBeInTheDocument();
    expect(screen.getByText('Lütfen şifrenizi girin.')).toBeInTheDocument();
    expect(screen.getByLabelText('E-posta')).toHaveAttribute('type', 'email');
    expect(calls).toBe(0);
  });

  it('shows the login error, re-enables the form, and re-localises the error on a language switch', async () => {
    server.use(http.post('*/auth/login', () => HttpResponse.json({ detail: 'Invalid credentials' }, { status: 401 })));
    renderApp('/login');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('E-posta'), 'ayse@example.com');
    await u.type(screen.getByLabelText('Şifre'), 'wrong-password');
    await u.click(screen.getByRole('button', { name: 'Giriş yap' }));

    expect(await screen.findByText('Giriş başarısız. Lütfen bilgilerinizi kontrol edin.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Giriş yap' })).toBeEnabled();
    expect(screen.getByLabelText('E-posta')).toBeEnabled();

    await u.click(screen.getAllByRole('button', { name: 'EN English' })[0]!);
    expect(await screen.findByText('Login failed. Please check your details.')).toBeInTheDocument();
    expect(screen.queryByText('Giriş başarısız. Lütfen bilgilerinizi kontrol edin.')).not.toBeInTheDocument();
    expect(window.localStorage.getItem(STORAGE_KEYS.language)).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });

  it('goes to /dashboard after login when no path was remembered', async () => {
    server.use(
      http.post('*/auth/login', () => HttpResponse.json({ access_token: 'tok' })),
      http.get('*/auth/me', () => HttpResponse.json(user())),
    );
    const { router } = renderApp('/login');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('E-posta'), 'ayse@example.com');
    await u.type(screen.getByLabelText('Şifre'), 'whatever1');
    await u.click(screen.getByRole('button', { name: 'Giriş yap' }));
    await screen.findByRole('heading', { name: 'Video analizi' });
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});

describe('single sign-on (issue 30)', () => {
  it('offers the company account only when the server has single sign-on', async () => {
    renderApp('/login');
    await screen.findByRole('button', { name: 'Giriş yap' });
    expect(screen.queryByRole('button', { name: 'Şirket hesabınızla giriş yapın' })).not.toBeInTheDocument();
  });

  it('shows the server’s reason when the organisation turned password login off', async () => {
    server.use(
      http.get('*/auth/sso', () => HttpResponse.json({ enabled: true })),
      http.post('*/auth/login', () =>
        HttpResponse.json(
          { code: 'password_login_disabled', detail: 'Kuruluşunuz yalnızca şirket hesaplarıyla giriş yapıyor. Lütfen “Şirket hesabınızla giriş yapın” seçeneğini kullanın.' },
          { status: 403 },
        ),
      ),
    );
    renderApp('/login');
    const u = userEvent.setup();
    expect(await screen.findByRole('button', { name: 'Şirket hesabınızla giriş yapın' })).toBeEnabled();
    await u.type(screen.getByLabelText('E-posta'), 'ayse@example.com');
    await u.type(screen.getByLabelText('Şifre'), 'right-password');
    await u.click(screen.getByRole('button', { name: 'Giriş yap' }));
    expect(await screen.findByText(/Kuruluşunuz yalnızca şirket hesaplarıyla giriş yapıyor/)).toBeInTheDocument();
    expect(screen.queryByText('Giriş başarısız. Lütfen bilgilerinizi kontrol edin.')).not.toBeInTheDocument();
  });

  it('finishes the sign-in on /login/sso with what the issuer sent back, and opens the dashboard', async () => {
    let posted: unknown = null;
    server.use(
      http.post('*/auth/sso/callback', async ({ request }) => {
        posted = await request.json();
        return HttpResponse.json({ access_token: 'sso-token', token_type: 'bearer', expires_in: 3600, created: true, redirect_to: null });
      }),
      http.get('*/auth/me', () => HttpResponse.json(user())),
    );
    const { router } = renderApp('/login/sso?code=abc&state=xyz&unrelated=1');
    await screen.findByRole('heading', { name: 'Video analizi' });
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(posted).toEqual({ code: 'abc', state: 'xyz' });
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBe('sso-token');
  });

  it('goes back to the login page with the server’s reason when the sign-in is refused', async () => {
    server.use(
      http.get('*/auth/sso', () => HttpResponse.json({ enabled: true })),
      http.post('*/auth/sso/callback', () =>
        HttpResponse.json({ code: 'sso_token_expired', detail: 'Giriş reddedildi: kimlik belirtecinin süresi dolmuş. Lütfen yeniden başlayın.' }, { status: 401 }),
      ),
    );
    const { router } = renderApp('/login/sso?code=abc&state=xyz');
    expect(await screen.findByText('Giriş reddedildi: kimlik belirtecinin süresi dolmuş. Lütfen yeniden başlayın.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
  });
});

describe('register form', () => {
  async function fill(u: ReturnType<typeof userEvent.setup>, values: { email?: string; password?: string; confirm?: string; name?: string }) {
    if (values.name) await u.type(screen.getByLabelText(/Ad soyad/), values.name);
    if (values.email) await u.type(screen.getByLabelText('E-posta'), values.email);
    if (values.password) await u.type(screen.getByLabelText('Şifre'), values.password);
    if (values.confirm) await u.type(screen.getByLabelText('Şifre (tekrar)'), values.confirm);
  }

  it('mentions free credits', async () => {
    renderApp('/register');
    expect(await screen.findByText(/ücretsiz kredi/i)).toBeInTheDocument();
  });

  it("blocks a password mismatch with 'Şifreler eşleşmiyor.' (and 'Passwords do not match.' in English)", async () => {
    let calls = 0;
    server.use(http.post('*/auth/register', () => (calls++, HttpResponse.json(user(), { status: 201 }))));
    renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { email: 'new@example.com', password: 'longenough1', confirm: 'longenough2' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(screen.getByText('Şifreler eşleşmiyor.')).toBeInTheDocument();
    await u.click(screen.getAllByRole('button', { name: 'EN English' })[0]!);
    expect(await screen.findByText('Passwords do not match.')).toBeInTheDocument();
    expect(calls).toBe(0);
  });

  it('requires a password of at least 8 characters', async () => {
    renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { email: 'new@example.com', password: 'short', confirm: 'short' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(screen.getByText('Şifre en az 8 karakter olmalıdır.')).toBeInTheDocument();
  });

  it('registers, logs in automatically with the same credentials, refreshes the user and goes to /dashboard', async () => {
    const sent: unknown[] = [];
    let loginBody: unknown = null;
    let meCalls = 0;
    server.use(
      http.post('*/auth/register', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json(user({ email: 'new@example.com', full_name: null }), { status: 201 });
      }),
      http.post('*/auth/login', async ({ request }) => {
        loginBody = await request.json();
        return HttpResponse.json({ access_token: 'fresh' });
      }),
      http.get('*/auth/me', () => (meCalls++, HttpResponse.json(user({ email: 'new@example.com', full_name: null })))),
    );
    const { router } = renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { email: 'new@example.com', password: 'longenough1', confirm: 'longenough1' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    await screen.findByRole('heading', { name: 'Video analizi' });
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(sent).toEqual([{ email: 'new@example.com', password: 'longenough1' }]);
    expect(loginBody).toEqual({ email: 'new@example.com', password: 'longenough1' });
    expect(meCalls).toBeGreaterThanOrEqual(2);
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBe('fresh');
  });

  it('sends the full name when given', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post('*/auth/register', async ({ request }) => (sent.push(await request.json()), HttpResponse.json(user(), { status: 201 }))),
      http.post('*/auth/login', () => HttpResponse.json({ access_token: 'fresh' })),
      http.get('*/auth/me', () => HttpResponse.json(user())),
    );
    renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { name: 'Ayşe Yılmaz', email: 'ayse@example.com', password: 'longenough1', confirm: 'longenough1' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    await waitFor(() => expect(sent).toEqual([{ email: 'ayse@example.com', password: 'longenough1', full_name: 'Ayşe Yılmaz' }]));
  });

  it('shows the server’s reason when it gives one, and clears it on a new attempt', async () => {
    let attempt = 0;
    server.use(
      http.post('*/auth/register', ({ request }) =>
        ++attempt === 1
          ? HttpResponse.json({ detail: request.headers.get('accept-language') === 'tr' ? 'Bu e-posta adresiyle bir hesap zaten var.' : 'wrong language' }, { status: 409 })
          : HttpResponse.json({}, { status: 500 }),
      ),
    );
    renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { email: 'ayse@example.com', password: 'longenough1', confirm: 'longenough1' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(await screen.findByText('Bu e-posta adresiyle bir hesap zaten var.')).toBeInTheDocument();
    // a new attempt that fails client-side: the old server reason is gone
    await u.clear(screen.getByLabelText('Şifre (tekrar)'));
    await u.type(screen.getByLabelText('Şifre (tekrar)'), 'different1');
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(screen.queryByText('Bu e-posta adresiyle bir hesap zaten var.')).not.toBeInTheDocument();
    // a failure without a reason: the spec's generic message
    await u.clear(screen.getByLabelText('Şifre (tekrar)'));
    await u.type(screen.getByLabelText('Şifre (tekrar)'), 'longenough1');
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(await screen.findByText('Hesabınız oluşturulurken bir sorun oluştu. Lütfen tekrar deneyin.')).toBeInTheDocument();
  });

  it('shows a generic error when registration fails without a reason', async () => {
    server.use(http.post('*/auth/register', () => HttpResponse.json({}, { status: 503 })));
    renderApp('/register');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Hesap oluşturun' });
    await fill(u, { email: 'x@mailinator.com', password: 'longenough1', confirm: 'longenough1' });
    await u.click(screen.getByRole('button', { name: 'Hesap oluştur' }));
    expect(await screen.findByText('Hesabınız oluşturulurken bir sorun oluştu. Lütfen tekrar deneyin.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Hesap oluştur' })).toBeEnabled();
  });
});
