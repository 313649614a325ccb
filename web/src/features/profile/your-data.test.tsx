import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('your data (profile)', () => {
  it('deletes the account only with the password, after a clear warning, then logs out and says it is done', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.delete('*/me', async ({ request }) => {
        const body = (await request.json()) as { password?: string };
        bodies.push(body);
        return body.password === 'doğru şifre'
          ? new HttpResponse(null, { status: 204 })
          : HttpResponse.json({ status: 403, code: 'reauthentication_required', detail: 'Şifre doğru değil.' }, { status: 403, headers: { 'content-type': 'application/problem+json' } });
      }),
    );
    renderApp('/dashboard/profile', { user: user() });
    const section = await screen.findByRole('region', { name: 'Verileriniz' });
    expect(within(section).getByRole('button', { name: 'Verilerimi indir' })).toBeInTheDocument();
    const u = userEvent.setup();
    await u.click(within(section).getByRole('button', { name: 'Hesabımı sil' }));
    expect(within(section).getByText('Bu işlem geri alınamaz')).toBeInTheDocument();
    // Nothing is sent without a password.
    await u.click(within(section).getByRole('button', { name: 'Hesabımı kalıcı olarak sil' }));
    expect(within(section).getByText('Onaylamak için lütfen şifrenizi girin.')).toBeInTheDocument();
    expect(bodies).toEqual([]);
    await u.type(within(section).getByLabelText('Onaylamak için şifreniz'), 'yanlış');
    await u.click(within(section).getByRole('button', { name: 'Hesabımı kalıcı olarak sil' }));
    expect(await within(section).findByText('Şifre doğru değil.')).toBeInTheDocument();
    await u.clear(within(section).getByLabelText('Onaylamak için şifreniz'));
    await u.type(within(section).getByLabelText('Onaylamak için şifreniz'), 'doğru şifre');
    await u.click(within(section).getByRole('button', { name: 'Hesabımı kalıcı olarak sil' }));
    await waitFor(() => expect(bodies).toEqual([{ password: 'yanlış' }, { password: 'doğru şifre' }]));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Verileriniz' })).not.toBeInTheDocument());
    // A word on the page they land on (issue 40), not a silent landing page.
    expect(await screen.findByText(/Hesabınız kalıcı olarak silindi/)).toBeInTheDocument();
  });

  it('says on the account card what a password reset does to API keys, with a way to them', async () => {
    renderApp('/dashboard/profile', { user: user() });
    const account = await screen.findByRole('region', { name: 'Hesap' });
    expect(within(account).getByText(/API anahtarlarınız ise, sıfırlama formunda hepsini iptal etmeyi seçmezseniz çalışmaya devam eder/)).toBeInTheDocument();
    expect(within(account).getByRole('link', { name: /API anahtarlarınızı yönetin/ })).toHaveAttribute('href', '/dashboard/api-keys');
  });
});
