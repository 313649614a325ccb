import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { STORAGE_KEYS } from '@/lib/storage';
import { admin, user } from '@/testing/fixtures';
import { renderApp, sessionResolved } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('route guards', () => {
  it('sends a visitor of a protected route to /login, remembering path and query, and back after login (replacing history)', async () => {
    const me = user();
    server.use(
      http.post('*/auth/login', async ({ request }) => {
        const body = (await request.json()) as { email: string; password: string };
        return body.password === 'correct-horse' ? HttpResponse.json({ access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 }) : new HttpResponse(null, { status: 401 });
      }),
      http.get('*/auth/me', ({ request }) => (request.headers.get('Authorization') === 'Bearer tok-1' ? HttpResponse.json(me) : new HttpResponse(null, { status: 401 }))),
      http.get('*/jobs', () => HttpResponse.json([])),
    );
    const { router } = renderApp('/dashboard/history?tab=mine');
    await screen.findByRole('heading', { name: 'Giriş yap' });
    expect(router.state.location.pathname).toBe('/login');
    expect(new URLSearchParams(router.state.location.search).get('redirectTo')).toBe('/dashboard/history?tab=mine');

    const u = userEvent.setup();
    await u.type(screen.getByLabelText('E-posta'), 'ayse@example.com');
    await u.type(screen.getByLabelText('Şifre'), 'correct-horse');
    await u.click(screen.getByRole('button', { name: 'Giriş yap' }));

    await screen.findByRole('heading', { name: 'Analiz geçmişi' });
    expect(router.state.location.pathname).toBe('/dashboard/history');
    expect(router.state.location.search).toBe('?tab=mine');
    expect(router.state.historyAction).toBe('REPLACE');
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBe('tok-1');
  });

  it('sends a logged-in user visiting /login or /register to /dashboard', async () => {
    const { router } = renderApp('/login', { user: user() });
    await screen.findByRole('heading', { name: 'Video analizi' });
    expect(router.state.location.pathname).toBe('/dashboard');
    await router.navigate('/register');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('sends unknown paths to /', async () => {
    const { router } = renderApp('/no/such/page');
    await screen.findByRole('heading', { level: 1, name: /Eksik bareti/ });
    expect(router.state.location.pathname).toBe('/');
  });

  it("shows 'Yükleniyor…' while the session resolves", async () => {
    window.localStorage.setItem(STORAGE_KEYS.token, 'slow');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get('*/auth/me', async () => {
        await gate;
        return HttpResponse.json(user());
      }),
    );
    renderApp('/dashboard');
    expect(await screen.findByText('Yükleniyor…')).toBeInTheDocument();
    release();
    await sessionResolved();
    expect(await screen.findByRole('heading', { name: 'Video analizi' })).toBeInTheDocument();
  });

  it('shows the Admin nav entry and label only to admins', async () => {
    renderApp('/dashboard', { user: user() });
    const nav = await screen.findByRole('navigation', { name: 'Uygulama menüsü' });
    expect(within(nav).getByRole('link', { name: 'Geçmiş' })).toBeInTheDocument();
    expect(within(nav).queryByRole('link', { name: 'Admin' })).not.toBeInTheDocument();
  });

  it('shows the Admin nav entry and the user badge label to admins', async () => {
    server.use(http.get('*/admin/usage', () => HttpResponse.json({ total_prompt_tokens: 0, total_completion_tokens: 0, total_cost: 0, currency: 'USD', users: [] })), http.get('*/admin/users/quotas', () => HttpResponse.json([])));
    renderApp('/dashboard', { user: admin() });
    const nav = await screen.findByRole('navigation', { name: 'Uygulama menüsü' });
    expect(within(nav).getByRole('link', { name: 'Admin' })).toHaveAttribute('href', '/dashboard/admin');
    expect(screen.getByText('Admin Kişi')).toBeInTheDocument();
  });

  it("tells a non-admin on /dashboard/admin 'Admin yetkiniz bulunmuyor.'", async () => {
    renderApp('/dashboard/admin', { user: user() });
    expect(await screen.findByText('Admin yetkiniz bulunmuyor.')).toBeInTheDocument();
  });
});

describe('auth session', () => {
  it('clears a token silently when the current-user fetch fails', async () => {
    window.localStorage.setItem(STORAGE_KEYS.token, 'expired');
    server.use(http.get('*/auth/me', () => HttpResponse.json({ detail: 'expired' }, { status: 401 })));
    const { router } = renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Giriş yap' });
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('sends the stored token as a bearer credential', async () => {
    let seen: string | null = null;
    window.localStorage.setItem(STORAGE_KEYS.token, 'stored-token');
    server.use(
      http.get('*/auth/me', ({ request }) => {
        seen = request.headers.get('Authorization');
        return HttpResponse.json(user());
      }),
    );
    renderApp('/dashboard/profile');
    await screen.findByRole('heading', { name: 'Profil' });
    expect(seen).toBe('Bearer stored-token');
  });

  it('logs out: clears the token and returns home', async () => {
    const { router } = renderApp('/dashboard/profile', { user: user() });
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'Profil' });
    await u.click(screen.getAllByRole('button', { name: 'Çıkış yap' })[0]!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    expect(await screen.findAllByRole('link', { name: 'Kayıt ol' })).not.toHaveLength(0);
  });
});
