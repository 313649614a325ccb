import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

const org = (role: 'manager' | 'member') => ({ id: 'o1', name: 'Boğaziçi Elektrik', role, created_at: '2026-05-01T08:00:00.000Z', member_count: 2, quota: quota() });

function serve(role: 'manager' | 'member', patches: unknown[]) {
  let settings = { blur_third_party: true, managers_see_unblurred: false };
  server.use(
    http.get('*/orgs/current', () => HttpResponse.json(org(role))),
    http.get('*/orgs/o1/members', () => HttpResponse.json([])),
    http.get('*/orgs/o1/invites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/sites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/crews', () => HttpResponse.json([])),
    http.get('*/orgs/o1/settings', () => HttpResponse.json(settings)),
    http.patch('*/orgs/o1/settings', async ({ request }) => {
      const body = (await request.json()) as Partial<typeof settings>;
      patches.push(body);
      settings = { ...settings, ...body };
      return HttpResponse.json(settings);
    }),
  );
}

describe('the organisation’s face settings (issue 30)', () => {
  it('shows a manager both settings in Turkish with their defaults and saves a change', async () => {
    const patches: unknown[] = [];
    serve('manager', patches);
    renderApp('/dashboard/organisation', { user: user() });
    expect(await screen.findByRole('heading', { name: 'Kanıtlardaki yüzler' })).toBeInTheDocument();
    const blur = await screen.findByRole('checkbox', { name: 'Harici görüntü modeline gönderilen karelerde yüzleri bulanıklaştır' });
    const unblurred = screen.getByRole('checkbox', { name: 'Yöneticiler bulanıklaştırılmamış kanıtları görebilsin' });
    expect(blur).toBeChecked();
    expect(blur).toHaveAccessibleDescription('Varsayılan olarak açık. Kapalıyken harici (OpenAI uyumlu) model yüzleri görünür kareler alır; saklanan kanıtlar yine bulanıktır.');
    expect(unblurred).not.toBeChecked();
    await userEvent.setup().click(unblurred);
    await waitFor(() => expect(patches).toEqual([{ managers_see_unblurred: true }]));
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Yöneticiler bulanıklaştırılmamış kanıtları görebilsin' })).toBeChecked());
  });

  it('shows a member the settings without letting them change them', async () => {
    serve('member', []);
    renderApp('/dashboard/organisation', { user: user() });
    const blur = await screen.findByRole('checkbox', { name: 'Harici görüntü modeline gönderilen karelerde yüzleri bulanıklaştır' });
    expect(blur).toBeDisabled();
    expect(screen.getByText('Bu ayarları yalnızca kuruluşun yöneticileri değiştirebilir.')).toBeInTheDocument();
  });
});
