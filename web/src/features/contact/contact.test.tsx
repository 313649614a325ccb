import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('contact page', () => {
  it('names an Istanbul-based team', async () => {
    renderApp('/contact');
    expect(await screen.findByRole('heading', { name: 'İstanbul merkezli bir ekip' })).toBeInTheDocument();
  });

  it('validates inline: the email label when email is empty, the placeholder when the message is under 10 characters', async () => {
    let calls = 0;
    server.use(http.post('*/contact', () => (calls++, HttpResponse.json({ status: 'received' }, { status: 202 }))));
    renderApp('/contact');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Mesajı gönder' }));
    const email = screen.getByRole('textbox', { name: 'E-posta' });
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(email).toHaveAccessibleDescription('Lütfen e-posta adresinizi girin.');
    const message = screen.getByRole('textbox', { name: 'Mesaj' });
    expect(message).toHaveAccessibleDescription(expect.stringContaining('Mesajınız (en az 10 karakter)'));
    await u.type(email, '   ');
    await u.type(message, '  short    ');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(message).toHaveAttribute('aria-invalid', 'true');
    expect(message).toHaveAttribute('maxlength', '2000');
    await u.clear(email);
    await u.type(email, 'not-an-address');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    expect(email).toHaveAccessibleDescription('Lütfen geçerli bir e-posta adresi girin.');
    expect(calls).toBe(0);
  });

  it('idle → loading → success: sends nulls for blank name and subject, locks the form and clears the message', async () => {
    const bodies: unknown[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      http.post('*/contact', async ({ request }) => {
        bodies.push(await request.json());
        await gate;
        return HttpResponse.json({ status: 'received' }, { status: 202 });
      }),
    );
    renderApp('/contact');
    const u = userEvent.setup();
    await u.type(await screen.findByRole('textbox', { name: 'E-posta' }), ' ops@example.com ');
    await u.type(screen.getByRole('textbox', { name: 'Mesaj' }), '  We need a demo for 12 crews.  ');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Mesajı gönder' })).toBeDisabled());
    expect(screen.getByRole('textbox', { name: 'Mesaj' })).toBeDisabled();
    release();
    expect(await screen.findByText('Teşekkürler! Mesajınız gönderildi.')).toBeInTheDocument();
    expect(bodies).toEqual([{ name: null, email: 'ops@example.com', subject: null, message: 'We need a demo for 12 crews.' }]);
    expect(screen.getByRole('textbox', { name: 'Mesaj' })).toHaveValue('');
    expect(screen.getByRole('textbox', { name: 'Mesaj' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Mesaj gönderildi' })).toBeDisabled();
  });

  it('shows the server’s reason for a 400 rather than "try again later"', async () => {
    server.use(http.post('*/contact', () => HttpResponse.json({ detail: 'Bu adres geçerli değil.' }, { status: 400 })));
    renderApp('/contact');
    const u = userEvent.setup();
    await u.type(await screen.findByRole('textbox', { name: 'E-posta' }), 'ops@example.com');
    await u.type(screen.getByRole('textbox', { name: 'Mesaj' }), 'A long enough message.');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    expect(await screen.findByText('Bu adres geçerli değil.')).toBeInTheDocument();
    expect(screen.queryByText('Lütfen daha sonra tekrar deneyin.')).not.toBeInTheDocument();
  });

  it('shows the error banner and allows a retry', async () => {
    let attempt = 0;
    server.use(http.post('*/contact', () => (++attempt === 1 ? HttpResponse.json({}, { status: 500 }) : HttpResponse.json({ status: 'received' }, { status: 202 }))));
    renderApp('/contact');
    const u = userEvent.setup();
    await u.type(await screen.findByRole('textbox', { name: 'E-posta' }), 'ops@example.com');
    await u.type(screen.getByRole('textbox', { name: 'Mesaj' }), 'A long enough message.');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    expect(await screen.findByText('Lütfen daha sonra tekrar deneyin.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Mesaj' })).toHaveValue('A long enough message.');
    await u.click(screen.getByRole('button', { name: 'Mesajı gönder' }));
    expect(await screen.findByText('Teşekkürler! Mesajınız gönderildi.')).toBeInTheDocument();
    expect(attempt).toBe(2);
  });

  it('prefills name and email from the logged-in user', async () => {
    renderApp('/contact', { user: user() });
    expect(await screen.findByRole('textbox', { name: /Ad/ })).toHaveValue('Ayşe Yılmaz');
    expect(screen.getByRole('textbox', { name: 'E-posta' })).toHaveValue('ayse@example.com');
  });
});
