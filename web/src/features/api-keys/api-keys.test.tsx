import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { ApiKey } from '@/types/api';

const KEY: ApiKey = { id: 'k1', name: 'CI uploader', token_prefix: 'brt_ab12', created_at: '2025-03-01T10:00:00Z', last_used_at: null };

describe('API keys page', () => {
  it('shows the quota card with plan, usage, remaining and the lifetime badge, and refreshes it', async () => {
    let calls = 0;
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json([])),
      http.get('*/auth/me', () => (calls++, HttpResponse.json(user({ quota: quota({ lifetime_used: calls > 1 ? 2 : 1, daily_limit: 10, daily_used: 3 }) })))),
    );
    renderApp('/dashboard/api-keys', { token: 't' });
    const card = await screen.findByRole('region', { name: 'Kullanım ve kota' });
    expect(within(card).getByText('Ücretsiz')).toBeInTheDocument();
    expect(within(card).getByText('3 / 10 kullanıldı')).toBeInTheDocument();
    expect(within(card).getByText('7 kaldı')).toBeInTheDocument();
    expect(within(card).getByText('Ömür boyu 1 analiz kaldı')).toBeInTheDocument();
    await userEvent.setup().click(within(card).getByRole('button', { name: 'Kotayı yenile' }));
    expect(await within(card).findByText('Ömür boyu 0 analiz kaldı')).toBeInTheDocument();
  });

  it('validates the key name (trimmed, 1–100 characters) and sends it trimmed', async () => {
    const names: string[] = [];
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json([])),
      http.post('*/auth/tokens', async ({ request }) => {
        const body = (await request.json()) as { name: string };
        names.push(body.name);
        return HttpResponse.json({ ...KEY, name: body.name, token: 'brt_ab12_SECRET' }, { status: 201 });
      }),
    );
    renderApp('/dashboard/api-keys', { user: user() });
    const u = userEvent.setup();
    const input = await screen.findByLabelText('Anahtar adı');
    await u.type(input, '   ');
    await u.click(screen.getByRole('button', { name: 'Anahtar oluştur' }));
    expect(screen.getByText('Lütfen anahtar için bir ad girin.')).toBeInTheDocument();
    await u.clear(input);
    await u.click(input);
    await u.paste('x'.repeat(101));
    await u.click(screen.getByRole('button', { name: 'Anahtar oluştur' }));
    expect(screen.getByText('Ad en fazla 100 karakter olabilir.')).toBeInTheDocument();
    expect(names).toEqual([]);
    await u.clear(input);
    await u.type(input, '  CI uploader  ');
    await u.click(screen.getByRole('button', { name: 'Anahtar oluştur' }));
    await waitFor(() => expect(names).toEqual(['CI uploader']));
  });

  it('shows the new token once, copies it (failures silent), and hides it', async () => {
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json([KEY])),
      http.post('*/auth/tokens', () => HttpResponse.json({ ...KEY, token: 'brt_ab12_SECRET' }, { status: 201 })),
    );
    renderApp('/dashboard/api-keys', { user: user() });
    const u = userEvent.setup();
    const writeText = vi.fn((_text: string): Promise<void> => Promise.reject(new Error('denied')));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await u.type(await screen.findByLabelText('Anahtar adı'), 'CI uploader');
    await u.click(screen.getByRole('button', { name: 'Anahtar oluştur' }));
    const token = await screen.findByLabelText('Yeni API anahtarı');
    expect(token).toHaveTextContent('brt_ab12_SECRET');
    await u.click(screen.getByRole('button', { name: 'Kopyala' }));
    expect(writeText).toHaveBeenCalledWith('brt_ab12_SECRET');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Kopyala' })).toBeInTheDocument();

    writeText.mockImplementation(() => Promise.resolve());
    await u.click(screen.getByRole('button', { name: 'Kopyala' }));
    expect(await screen.findByRole('button', { name: 'Kopyalandı' })).toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'Gizle' }));
    expect(screen.queryByText('brt_ab12_SECRET')).not.toBeInTheDocument();
    expect(screen.getByRole('row', { name: /CI uploader/ })).toHaveTextContent('brt_ab12');
  });

  it('deletes a key after confirmation and reports failures', async () => {
    const deleted: string[] = [];
    let fail = true;
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json([KEY])),
      http.delete('*/auth/tokens/:id', ({ params }) => {
        if (fail) return HttpResponse.json({}, { status: 500 });
        deleted.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/dashboard/api-keys', { user: user() });
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'CI uploader anahtarını sil' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Sil' }));
    expect(await screen.findByText('API anahtarı silinemedi.')).toBeInTheDocument();
    fail = false;
    await u.click(screen.getByRole('button', { name: 'CI uploader anahtarını sil' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Sil' }));
    await waitFor(() => expect(deleted).toEqual(['k1']));
  });

  it('reports a failed creation and a failed load', async () => {
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json({}, { status: 500 })),
      http.post('*/auth/tokens', () => HttpResponse.json({}, { status: 500 })),
    );
    renderApp('/dashboard/api-keys', { user: user() });
    const u = userEvent.setup();
    expect(await screen.findByText('API anahtarlarınız yüklenemedi. Lütfen tekrar deneyin.')).toBeInTheDocument();
    await u.type(screen.getByLabelText('Anahtar adı'), 'x');
    await u.click(screen.getByRole('button', { name: 'Anahtar oluştur' }));
    expect(await screen.findByText('Yeni API anahtarı oluşturulamadı.')).toBeInTheDocument();
  });
});
