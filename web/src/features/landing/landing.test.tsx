import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { STORAGE_KEYS } from '@/lib/storage';
import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

/** Answers GET /media/demo.json with `body`; the returned list fills with each request. */
function askedForDemoInfo(body: { video: string | null }): string[] {
  const asked: string[] = [];
  server.use(http.get('*/media/demo.json', ({ request }) => (asked.push(request.url), HttpResponse.json(body))));
  return asked;
}

describe('landing page', () => {
  it('shows the tagline, visitor CTAs, the demo-quota badge and the year in the footer', async () => {
    renderApp('/');
    expect(await screen.findByText('Analiz Et, İzle, Koru')).toBeInTheDocument();
    const hero = (await screen.findByRole('heading', { level: 1 })).closest('section')!;
    expect(within(hero).getByRole('link', { name: 'Ücretsiz başlayın' })).toHaveAttribute('href', '/register');
    expect(within(hero).getByRole('link', { name: 'Giriş yap' })).toHaveAttribute('href', '/login');
    expect(within(hero).getByText('Ücretsiz demo: 2 analiz')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toHaveTextContent(`© ${new Date().getFullYear()} Baret`);
  });

  it('sends a logged-in user to the dashboard and hides the demo badge', async () => {
    renderApp('/', { user: user() });
    const hero = (await screen.findByRole('heading', { level: 1 })).closest('section')!;
    expect(within(hero).getByRole('link', { name: 'Panele git' })).toHaveAttribute('href', '/dashboard');
    expect(within(hero).queryByText('Ücretsiz demo: 2 analiz')).not.toBeInTheDocument();
  });

  it('rotates the six scenario frames every 4500 ms', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    renderApp('/');
    const carousel = await screen.findByRole('region', { name: 'Saha senaryoları' });
    const current = () => within(carousel).getByRole('button', { current: true });
    expect(current()).toHaveAccessibleName('1. senaryoyu göster');
    expect(within(carousel).getAllByRole('img', { hidden: true })).toHaveLength(6);
    await act(() => vi.advanceTimersByTimeAsync(4400));
    expect(current()).toHaveAccessibleName('1. senaryoyu göster');
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(current()).toHaveAccessibleName('2. senaryoyu göster');
    await act(() => vi.advanceTimersByTimeAsync(4500 * 5));
    expect(current()).toHaveAccessibleName('1. senaryoyu göster');
  });

  it('promises only what the product checks: the sample report marks gloves not checked, never missing', async () => {
    renderApp('/');
    const sample = await screen.findByLabelText('Örnek sonuç');
    expect(within(sample).getByRole('row', { name: /Eldiven.*Kontrol edilmedi/ })).toBeInTheDocument();
    expect(within(sample).queryByText(/Eksik/)).not.toBeInTheDocument();
    expect(screen.queryByText(/eldiveni kaza/)).not.toBeInTheDocument();
  });

  it('offers "how it works" instead of an always-disabled demo chip when there is no video (issue 40)', async () => {
    const asked = askedForDemoInfo({ video: null });
    renderApp('/');
    const link = await screen.findByRole('link', { name: 'Nasıl çalıştığını görün' });
    expect(link).toHaveAttribute('href', '/how-it-works');
    expect(screen.queryByRole('button', { name: 'Demo videosunu izleyin' })).not.toBeInTheDocument();
    // a page that came from the server itself: its own demo-video tag is up to date, nothing more is asked
    expect(asked).toEqual([]);
  });

  describe('in an installed app (the page came from the service worker cache, its demo-video tag as old as the app)', () => {
    beforeEach(() => {
      const worker = { controller: { state: 'activated' }, addEventListener: () => undefined, removeEventListener: () => undefined };
      Object.defineProperty(window.navigator, 'serviceWorker', { value: worker, configurable: true });
    });
    afterEach(() => {
      Reflect.deleteProperty(window.navigator, 'serviceWorker');
    });

    it('asks the server whether there is a demo video now, and offers one added since the app was installed', async () => {
      const asked = askedForDemoInfo({ video: '/media/demo.mov' });
      server.use(http.head('*/media/demo.mov', () => new HttpResponse(null, { status: 200 })));
      renderApp('/');
      const chip = await screen.findByRole('button', { name: 'Demo videosunu izleyin' });
      await vi.waitFor(() => expect(chip).toBeEnabled());
      expect(asked).toHaveLength(1);
      await userEvent.setup().click(chip);
      expect(within(screen.getByRole('dialog', { name: 'Baret demosu' })).getByLabelText('Baret demosu')).toHaveAttribute('src', 'http://localhost:8080/media/demo.mov');
    });

    it('offers "how it works", asking nothing of the video, when the server has none (any more)', async () => {
      const asked = askedForDemoInfo({ video: null });
      const heads: string[] = [];
      server.use(http.head('*/media/demo.mov', ({ request }) => (heads.push(request.url), new HttpResponse(null, { status: 200 }))));
      renderApp('/');
      await vi.waitFor(() => expect(asked).toHaveLength(1));
      expect(await screen.findByRole('link', { name: 'Nasıl çalıştığını görün' })).toBeInTheDocument();
      expect(heads).toEqual([]);
    });

    it('offers "how it works" when the server cannot be asked (offline: the video could not play anyway)', async () => {
      server.use(http.get('*/media/demo.json', () => HttpResponse.error()));
      renderApp('/');
      expect(await screen.findByRole('link', { name: 'Nasıl çalıştığını görün' })).toBeInTheDocument();
    });
  });

  it('opens the demo video modal when the video exists, closing by button or backdrop', async () => {
    server.use(http.head('*/media/demo.mov', () => new HttpResponse(null, { status: 200 })));
    renderApp('/');
    const u = userEvent.setup();
    const chip = await screen.findByRole('button', { name: 'Demo videosunu izleyin' });
    await vi.waitFor(() => expect(chip).toBeEnabled());
    await u.click(chip);
    const dialog = screen.getByRole('dialog', { name: 'Baret demosu' });
    const videoEl = within(dialog).getByLabelText('Baret demosu');
    expect(videoEl).toHaveAttribute('src', 'http://localhost:8080/media/demo.mov');
    expect(videoEl).toHaveAttribute('controls');
    expect(videoEl).toHaveProperty('autoplay', true);
    await u.click(within(dialog).getAllByRole('button', { name: 'Kapat' })[0]!);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await u.click(chip);
    await u.click(screen.getByTestId('modal-backdrop'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('theme and language', () => {
  it('defaults to dark on the body, toggles to light and remembers it under amp-dashboard-theme', async () => {
    renderApp('/');
    await screen.findByRole('heading', { level: 1 });
    expect(document.body.dataset.theme).toBe('dark');
    await userEvent.setup().click(screen.getAllByRole('button', { name: 'Açık temaya geç' })[0]!);
    expect(document.body.dataset.theme).toBe('light');
    expect(window.localStorage.getItem(STORAGE_KEYS.theme)).toBe('light');
    expect(screen.getAllByRole('button', { name: 'Koyu temaya geç' }).length).toBeGreaterThan(0);
  });

  it('starts in the stored theme', async () => {
    window.localStorage.setItem(STORAGE_KEYS.theme, 'light');
    renderApp('/');
    await screen.findByRole('heading', { level: 1 });
    expect(document.body.dataset.theme).toBe('light');
  });

  it('switches every text to English', async () => {
    renderApp('/');
    const u = userEvent.setup();
    await screen.findByRole('heading', { level: 1 });
    await u.click(screen.getAllByRole('button', { name: 'EN English' })[0]!);
    expect(await screen.findByText('Analyze, Monitor, Protect')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Start free' }).length).toBeGreaterThan(0);
    expect(screen.getAllByRole('button', { name: 'EN English' })[0]).toHaveAttribute('aria-pressed', 'true');
  });
});
