import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Webhook } from '@/features/webhooks/api/webhooks';
import { user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

describe('webhooks on the API page (issue 40: they had no UI)', () => {
  it('adds a webhook with the chosen events, shows its secret once, lists and deletes it', async () => {
    let hooks: Webhook[] = [];
    const posted: unknown[] = [];
    server.use(
      http.get('*/auth/tokens', () => HttpResponse.json([])),
      http.get('*/webhooks', () => HttpResponse.json(hooks)),
      http.post('*/webhooks', async ({ request }) => {
        const body = (await request.json()) as { url: string; events: Webhook['events'] };
        posted.push(body);
        const hook: Webhook = { id: 'w1', url: body.url, events: body.events, created_at: '2026-03-01T10:00:00Z', disabled_at: null, failing_since: null };
        hooks = [hook];
        return HttpResponse.json({ ...hook, secret: 'whsec_SECRET' }, { status: 201 });
      }),
      http.delete('*/webhooks/:id', ({ params }) => ((hooks = hooks.filter((h) => h.id !== params.id)), new HttpResponse(null, { status: 204 }))),
    );
    renderApp('/dashboard/api-keys', { user: user() });
    const card = await screen.findByRole('region', { name: 'Webhook’lar' });
    expect(await within(card).findByText('Henüz webhook yok.')).toBeInTheDocument();
    const u = userEvent.setup();
    await u.type(within(card).getByLabelText(/Adres \(URL\)/), 'https://scada.example.com/baret');
    await u.click(within(card).getByRole('checkbox', { name: 'Kota azaldı' }));
    await u.click(within(card).getByRole('button', { name: 'Webhook ekle' }));
    await waitFor(() => expect(posted).toEqual([{ url: 'https://scada.example.com/baret', events: ['job.completed', 'job.failed', 'quota.low'] }]));
    expect(await within(card).findByTestId('webhook-secret')).toHaveTextContent('whsec_SECRET');
    const list = await within(card).findByRole('list', { name: 'Webhook’lar' });
    expect(within(list).getByText('https://scada.example.com/baret')).toBeInTheDocument();
    expect(within(list).getByText(/Analiz tamamlandı, Analiz başarısız oldu, Kota azaldı/)).toBeInTheDocument();
    await u.click(within(list).getByRole('button', { name: 'https://scada.example.com/baret webhook’unu sil' }));
    expect(await within(card).findByText('Henüz webhook yok.')).toBeInTheDocument();
  });
});
