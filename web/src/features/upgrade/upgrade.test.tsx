import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('pricing', () => {
  it('lists free, pro (highlighted, 4.500 TRY/ay) and enterprise; visitors get a log-in prompt instead of the form', async () => {
    renderApp('/pricing');
    const plans = await screen.findAllByRole('listitem', { name: /Ücretsiz|Pro|Kurumsal/ });
    expect(plans).toHaveLength(3);
    const pro = screen.getByRole('listitem', { name: 'Pro' });
    expect(pro).toHaveClass('plan-highlight');
    expect(pro).toHaveTextContent('4.500 TRY/ay');
    expect(pro).toHaveTextContent('Günde 10, ayda 100 analiz');
    expect(screen.getByRole('listitem', { name: 'Kurumsal' })).toHaveTextContent('7/24 SLA destek');
    expect(screen.getByRole('listitem', { name: 'Ücretsiz' })).toHaveTextContent('Ömür boyu 2 analiz');
    const upgrade = screen.getByRole('region', { name: 'Pro yükseltme talebi' });
    expect(within(upgrade).getByText('Pro yükseltme talebi için giriş yapın.')).toBeInTheDocument();
    expect(within(upgrade).getByRole('link', { name: 'Giriş yap' })).toHaveAttribute('href', '/login?redirectTo=%2Fpricing%23upgrade');
    expect(within(upgrade).queryByRole('textbox')).not.toBeInTheDocument();
    const faq = screen.getByRole('region', { name: 'Sık sorulan sorular' });
    expect(within(faq).getByText('Videolarıma ne oluyor?')).toBeInTheDocument();
  });

  it('tells a user who already asked that the request is pending, instead of the form', async () => {
    server.use(http.get('*/usage/upgrade-request', () => HttpResponse.json({ pending: true, requested_at: '2025-03-04T10:00:00Z' })));
    renderApp('/pricing', { user: user() });
    expect(await screen.findByText('Talebiniz bekliyor')).toBeInTheDocument();
    expect(screen.getByText(/tarihli yükseltme talebiniz alındı; ekibimiz inceliyor\./)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Talep gönder' })).not.toBeInTheDocument();
  });

  it('shows 99 USD/month in English', async () => {
    renderApp('/pricing');
    const u = userEvent.setup();
    await screen.findByRole('listitem', { name: 'Pro' });
    await u.click(screen.getAllByRole('button', { name: 'EN English' })[0]!);
    expect(await screen.findByRole('listitem', { name: 'Pro' })).toHaveTextContent('99 USD/month');
  });

  it('idle → loading → success for a logged-in free user; a blank message is sent as null and the form locks', async () => {
    const bodies: unknown[] = [];
    server.use(http.post('*/usage/request-upgrade', async ({ request }) => (bodies.push(await request.json()), HttpResponse.json({ status: 'received' }, { status: 202 }))));
    renderApp('/pricing', { user: user() });
    const u = userEvent.setup();
    const upgrade = await screen.findByRole('region', { name: 'Pro yükseltme talebi' });
    await u.type(within(upgrade).getByRole('textbox', { name: /Mesaj/ }), '   ');
    await u.click(within(upgrade).getByRole('button', { name: 'Talep gönder' }));
    expect(await within(upgrade).findByText('Teşekkürler! Yükseltme talebiniz alındı.')).toBeInTheDocument();
    expect(bodies).toEqual([{ origin: 'pricing', message: null }]);
    expect(within(upgrade).getByRole('button', { name: 'Talep gönderildi' })).toBeDisabled();
    expect(within(upgrade).getByRole('textbox', { name: /Mesaj/ })).toBeDisabled();
  });

  it('shows the error banner and allows a retry, sending the trimmed message', async () => {
    const bodies: unknown[] = [];
    let attempt = 0;
    server.use(
      http.post('*/usage/request-upgrade', async ({ request }) => {
        bodies.push(await request.json());
        return ++attempt === 1 ? HttpResponse.json({}, { status: 500 }) : HttpResponse.json({ status: 'received' }, { status: 202 });
      }),
    );
    renderApp('/pricing', { user: user() });
    const u = userEvent.setup();
    const upgrade = await screen.findByRole('region', { name: 'Pro yükseltme talebi' });
    await u.type(within(upgrade).getByRole('textbox', { name: /Mesaj/ }), '  12 crews  ');
    await u.click(within(upgrade).getByRole('button', { name: 'Talep gönder' }));
    expect(await within(upgrade).findByText('Lütfen daha sonra tekrar deneyin.')).toBeInTheDocument();
    await u.click(within(upgrade).getByRole('button', { name: 'Talep gönder' }));
    await waitFor(() => expect(bodies).toEqual([{ origin: 'pricing', message: '12 crews' }, { origin: 'pricing', message: '12 crews' }]));
  });

  it('hides the form from pro users (any case)', async () => {
    renderApp('/pricing', { user: user({ quota: quota({ plan_name: 'Pro' }) }) });
    const upgrade = await screen.findByRole('region', { name: 'Pro yükseltme talebi' });
    expect(within(upgrade).getByText('Hesabınız zaten Pro planında.')).toBeInTheDocument();
    expect(within(upgrade).queryByRole('textbox')).not.toBeInTheDocument();
  });
});

describe('profile', () => {
  it('shows dates in the viewer zone in the app date format with the zone named, a dash when missing, plan, usage, the history link and the upgrade block (origin profile)', async () => {
    const bodies: unknown[] = [];
    server.use(http.post('*/usage/request-upgrade', async ({ request }) => (bodies.push(await request.json()), HttpResponse.json({ status: 'received' }, { status: 202 }))));
    renderApp('/dashboard/profile', { user: user({ last_login_at: null, created_at: '2025-01-02T18:09:00Z', quota: quota({ daily_used: 1, lifetime_used: 1 }) }) });
    const account = await screen.findByRole('region', { name: 'Hesap' });
    expect(within(account).getByText(/^2 Oca 2025 \d\d:09$/)).toBeInTheDocument();
    expect(within(account).queryByText(/\d UTC$/)).not.toBeInTheDocument();
    expect(within(account).getByText('Saat dilimi')).toBeInTheDocument();
    expect(within(account).getByText('—')).toBeInTheDocument();
    expect(within(account).getByRole('link', { name: /Analiz geçmişinizi görün/ })).toHaveAttribute('href', '/dashboard/history');
    const plan = screen.getByRole('region', { name: 'Plan ve kullanım' });
    expect(within(plan).getByText('Ücretsiz')).toBeInTheDocument();
    expect(within(plan).getByText('Ömür boyu').closest('div')).toHaveTextContent('1 / 2');
    const u = userEvent.setup();
    const block = screen.getByRole('region', { name: 'Pro yükseltme talebi' });
    await u.click(within(block).getByRole('button', { name: 'Talep gönder' }));
    await waitFor(() => expect(bodies).toEqual([{ origin: 'profile', message: null }]));
  });

  it('has no upgrade block for pro users', async () => {
    renderApp('/dashboard/profile', { user: user({ quota: quota({ plan_name: 'pro' }) }) });
    await screen.findByRole('region', { name: 'Hesap' });
    expect(screen.queryByRole('region', { name: 'Pro yükseltme talebi' })).not.toBeInTheDocument();
  });
});
