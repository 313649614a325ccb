import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

const org = (role: 'manager' | 'member') => ({ id: 'o1', name: 'Boğaziçi Elektrik', role, created_at: '2026-05-01T08:00:00.000Z', member_count: 2, quota: quota() });

function serve(role: 'manager' | 'member', patches: unknown[], refuse = false) {
  let settings: Record<string, unknown> = { blur_third_party: true, managers_see_unblurred: false, time_zone: 'Europe/Istanbul' };
  server.use(
    http.get('*/orgs/current', () => HttpResponse.json(org(role))),
    http.get('*/orgs/o1/members', () => HttpResponse.json([])),
    http.get('*/orgs/o1/invites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/sites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/crews', () => HttpResponse.json([])),
    http.get('*/orgs/o1/settings', () => HttpResponse.json(settings)),
    http.patch('*/orgs/o1/settings', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      patches.push(body);
      if (refuse) return HttpResponse.json({ status: 400, title: 'Bad Request', detail: 'time_zone, Europe/Istanbul ya da UTC gibi bir saat dilimi adı olmalı.' }, { status: 400, headers: { 'content-type': 'application/problem+json' } });
      settings = { ...settings, ...body };
      return HttpResponse.json(settings);
    }),
  );
}

describe('the time zone of the organisation’s reports (issue 54)', () => {
  it('shows a manager the default zone in Turkish and saves another', async () => {
    const patches: unknown[] = [];
    serve('manager', patches);
    renderApp('/dashboard/organisation', { user: user() });
    expect(await screen.findByRole('heading', { name: 'Raporların saat dilimi' })).toBeInTheDocument();
    const select = await screen.findByRole('combobox', { name: 'Saat dilimi' });
    expect(select).toHaveValue('Europe/Istanbul');
    expect(select).toHaveAccessibleDescription(/^Europe\/Istanbul saatiyle şu an \d\d:\d\d$/);
    const save = screen.getByRole('button', { name: 'Saat dilimini kaydet' });
    expect(save).toBeDisabled();
    const person = userEvent.setup();
    await person.selectOptions(select, 'Europe/Berlin');
    await person.click(save);
    await waitFor(() => expect(patches).toEqual([{ time_zone: 'Europe/Berlin' }]));
    expect(await screen.findByText('Raporlar artık Europe/Berlin saatiyle yazılıyor.')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Saat dilimi' })).toHaveValue('Europe/Berlin');
  });

  it('says why the server refused a zone', async () => {
    serve('manager', [], true);
    renderApp('/dashboard/organisation', { user: user() });
    const person = userEvent.setup();
    await person.selectOptions(await screen.findByRole('combobox', { name: 'Saat dilimi' }), 'UTC');
    await person.click(screen.getByRole('button', { name: 'Saat dilimini kaydet' }));
    expect(await screen.findByText('time_zone, Europe/Istanbul ya da UTC gibi bir saat dilimi adı olmalı.')).toBeInTheDocument();
  });

  it('shows a member the zone without letting them change it', async () => {
    serve('member', []);
    renderApp('/dashboard/organisation', { user: user() });
    expect(await screen.findByRole('combobox', { name: 'Saat dilimi' })).toBeDisabled();
    expect(screen.getByText('Saat dilimini yalnızca kuruluşun yöneticileri değiştirebilir.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Saat dilimini kaydet' })).toBeNull();
  });
});
