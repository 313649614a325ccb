import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import { i18n } from '@/lib/i18n';
import { quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';

const org = { id: 'o1', name: 'Boğaziçi Elektrik', role: 'manager', created_at: '2026-05-01T08:00:00.000Z', member_count: 2, quota: quota() };

function serve(puts: unknown[], ssoEnabled = true) {
  let signIn = { password_login: true, sso_enabled: ssoEnabled };
  server.use(
    http.get('*/orgs/current', () => HttpResponse.json(org)),
    http.get('*/orgs/o1/members', () => HttpResponse.json([])),
    http.get('*/orgs/o1/invites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/sites', () => HttpResponse.json([])),
    http.get('*/orgs/o1/crews', () => HttpResponse.json([])),
    http.get('*/orgs/o1/settings', () => HttpResponse.json({ blur_third_party: true, managers_see_unblurred: false })),
    http.get('*/orgs/o1/sign-in', () => HttpResponse.json(signIn)),
    http.put('*/orgs/o1/sign-in', async ({ request }) => {
      const body = (await request.json()) as { password_login: boolean };
      puts.push(body);
      signIn = { ...signIn, ...body };
      return HttpResponse.json(signIn);
    }),
  );
}

afterEach(async () => {
  await i18n.changeLanguage('tr');
});

describe.each([
  ['tr', 'Giriş', 'Üyeler şifreyle giriş yapabilir', 'Kaydedildi.', 'Üyeler yalnızca şirket hesabıyla girebilir. Baret yöneticileri (admin) şifreyle girmeye devam eder.'],
  ['en', 'Sign-in', 'Members may log in with a password', 'Saved.', 'Only the company account lets members in. Baret admins keep password login.'],
] as const)('the organisation’s sign-in card (%s)', (lang, title, label, saved, offHint) => {
  it('a manager turns password login off; the change is saved and the saving announced', async () => {
    await i18n.changeLanguage(lang);
    const puts: unknown[] = [];
    serve(puts);
    renderApp('/dashboard/organisation', { user: user() });
    const card = (await screen.findByRole('heading', { name: title })).closest('section')!;
    const toggle = await within(card).findByRole('checkbox', { name: label });
    expect(toggle).toBeChecked();
    expect(within(card).getByRole('status')).toBeEmptyDOMElement();
    await userEvent.setup().click(toggle);
    await waitFor(() => expect(puts).toEqual([{ password_login: false }]));
    await waitFor(() => expect(within(card).getByRole('status')).toHaveTextContent(saved));
    expect(within(card).getByRole('checkbox', { name: label })).not.toBeChecked();
    expect(within(card).getByText(offHint)).toBeInTheDocument();
  });
});

describe('the organisation’s sign-in card without single sign-on', () => {
  it('keeps password login on: the checkbox cannot be cleared', async () => {
    serve([], false);
    renderApp('/dashboard/organisation', { user: user() });
    expect(await screen.findByRole('checkbox', { name: 'Üyeler şifreyle giriş yapabilir' })).toBeDisabled();
  });
});
