import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { admin, quota, user } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { AuditEntry, Org, OrgMember } from '@/types/api';

const ORG: Org = { id: 'org-1', name: 'Boğaziçi Elektrik', role: 'manager', created_at: '2026-03-01T10:00:00.000Z', member_count: 2, quota: quota() };
const MEMBERS: OrgMember[] = [
  { user_id: 'u1', email: 'mudur@example.com', full_name: 'Ayşe Müdür', role: 'manager', joined_at: '2026-03-01T10:00:00.000Z' },
  { user_id: 'u2', email: 'ali@example.com', full_name: 'Ali Usta', role: 'member', joined_at: '2026-03-02T10:00:00.000Z' },
];
const entry = (overrides: Partial<AuditEntry>): AuditEntry => ({
  id: 'e1',
  at: '2026-03-15T10:00:00.000Z',
  action: 'job.viewed',
  outcome: 'success',
  actor_id: 'u1',
  actor_email: 'mudur@example.com',
  org_id: 'org-1',
  object_type: 'job',
  object_id: 'job-1',
  ip: '10.0.0.1',
  user_agent: 'Mozilla/5.0',
  details: {},
  ...overrides,
});

function orgServer() {
  const auditQueries: URLSearchParams[] = [];
  const patches: unknown[] = [];
  server.use(
    http.get('*/orgs/current', () => HttpResponse.json(ORG)),
    http.get('*/orgs/:id/members', () => HttpResponse.json(MEMBERS)),
    http.get('*/orgs/:id/invites', () => HttpResponse.json([])),
    http.get('*/orgs/:id/sites', () => HttpResponse.json([])),
    http.get('*/orgs/:id/crews', () => HttpResponse.json([])),
    http.patch('*/orgs/:id/members/:userId', async ({ params, request }) => {
      const body = (await request.json()) as { role: 'manager' | 'member' };
      patches.push({ user: params.userId, ...body });
      return HttpResponse.json({ ...MEMBERS[1]!, role: body.role });
    }),
    http.get('*/orgs/:id/audit', ({ request }) => {
      const query = new URL(request.url).searchParams;
      auditQueries.push(query);
      if (query.get('cursor') === 'next')
        return HttpResponse.json({ entries: [entry({ id: 'e3', action: 'auth.sign_in_failed', outcome: 'failure', actor_id: null, actor_email: null, object_type: 'user', object_id: null, details: { reason: 'wrong_password' } })], next_cursor: null });
      return HttpResponse.json({
        entries: [entry({}), entry({ id: 'e2', action: 'member.role_changed', object_type: 'user', object_id: 'u2', details: { role: 'manager', previous_role: 'member' } })],
        next_cursor: 'next',
      });
    }),
  );
  return { auditQueries, patches };
}

describe('audit log and roles on the organisation page', () => {
  it('shows a manager the audit log with its filters and more entries, and changes a member’s role', async () => {
    const { auditQueries, patches } = orgServer();
    renderApp('/dashboard/organisation', { user: user({ id: 'u1', email: 'mudur@example.com' }) });
    const log = await screen.findByRole('region', { name: 'Denetim kaydı' });
    const table = await within(log).findByRole('table', { name: 'Denetim kaydı, en yeni önce' });
    expect(within(table).getAllByRole('row', { name: /mudur@example.com/ })).toHaveLength(2);
    expect(within(table).getByText('İşi görüntüledi')).toBeInTheDocument();
    expect(within(table).getByText('Üye → Yönetici')).toBeInTheDocument();

    const u = userEvent.setup();
    await u.click(within(log).getByRole('button', { name: 'Daha fazla göster' }));
    expect(await within(log).findByText('yanlış parola')).toBeInTheDocument();
    expect(within(within(log).getByRole('table')).getByText('Oturum açılamadı')).toBeInTheDocument();
    expect(within(log).queryByRole('button', { name: 'Daha fazla göster' })).not.toBeInTheDocument();

    await u.selectOptions(within(log).getByRole('combobox', { name: 'İşlem' }), 'job.deleted');
    await u.click(within(log).getByRole('button', { name: 'Süz' }));
    await waitFor(() => expect(auditQueries.at(-1)?.get('action')).toBe('job.deleted'));

    // Who: the members by name, no id to type (issue 40); the object: a person's name, a click filters by it.
    expect(within(log).queryByRole('textbox')).not.toBeInTheDocument();
    await u.selectOptions(within(log).getByRole('combobox', { name: 'Kim' }), 'Ali Usta · ali@example.com');
    await u.click(within(log).getByRole('button', { name: 'Süz' }));
    await waitFor(() => expect(auditQueries.at(-1)?.get('actor')).toBe('u2'));
    await u.click(await within(log).findByRole('button', { name: 'Kullanıcı Ali Usta · ali@example.com kayıtlarını göster' }));
    await waitFor(() => expect(auditQueries.at(-1)?.get('object')).toBe('u2'));
    expect(within(log).getByText('Yalnızca şunun kayıtları: Kullanıcı Ali Usta · ali@example.com')).toBeInTheDocument();
    await u.click(within(log).getByRole('button', { name: 'Tüm kayıtları göster' }));
    await waitFor(() => expect(auditQueries.at(-1)?.has('object')).toBe(false));

    await u.selectOptions(await screen.findByRole('combobox', { name: 'Ali Usta kişisinin rolü' }), 'manager');
    await waitFor(() => expect(patches).toEqual([{ user: 'u2', role: 'manager' }]));
  });

  it('shows no audit log to a member', async () => {
    orgServer();
    server.use(http.get('*/orgs/current', () => HttpResponse.json({ ...ORG, role: 'member' })));
    renderApp('/dashboard/organisation', { user: user({ id: 'u2' }) });
    expect(await screen.findByRole('heading', { name: 'Boğaziçi Elektrik' })).toBeInTheDocument();
    expect(await screen.findByText('Ali Usta · ali@example.com')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Denetim kaydı' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: /rolü/ })).not.toBeInTheDocument();
  });

  it('shows an admin the whole audit log on the admin page', async () => {
    server.use(
      http.get('*/admin/usage', () => HttpResponse.json({ total_prompt_tokens: 0, total_completion_tokens: 0, total_cost: 0, currency: 'USD', users: [] })),
      http.get('*/admin/users/quotas', () => HttpResponse.json([])),
    );
    server.use(
      http.get('*/admin/audit', () =>
        HttpResponse.json({
          entries: [
            entry({ action: 'quota.changed', object_type: 'org', object_id: 'org-1', details: { plan_name: 'pro', lifetime_limit: 'unlimited' } }),
            entry({ id: 'e2', action: 'setting.changed', object_type: 'setting', object_id: 'require_email_verification', details: { scope: 'admin', value: 'true', previous: 'false' } }),
            entry({ id: 'e-reset', action: 'auth.password_reset', object_type: 'user', object_id: 'u-2', details: { api_keys: 'revoked', revoked: '2' } }),
            entry({ id: 'e-sso', action: 'auth.sso_linked', object_type: 'user', object_id: 'u-3', details: { issuer: 'https://login.example.com', address: 'unconfirmed', password: 'removed', revoked: '1' } }),
          ],
          next_cursor: null,
        }),
      ),
    );
    renderApp('/dashboard/admin', { user: admin() });
    const log = await screen.findByRole('region', { name: 'Denetim kaydı' });
    expect(await within(log).findByText('Plan veya kota değiştirdi')).toBeInTheDocument();
    // Words, not the server's keys (issue 40).
    expect(await within(log).findByText('Plan: Pro · Ömür boyu limit: Sınırsız')).toBeInTheDocument();
    expect(await within(log).findByText('E-posta doğrulaması zorunlu')).toBeInTheDocument();
    expect(await within(log).findByText('kapalı → açık')).toBeInTheDocument();
    expect(within(log).queryByText(/plan_name|lifetime_limit|require_email/)).not.toBeInTheDocument();
    // A password reset says whether every API key was revoked with it.
    expect(within(log).getByRole('cell', { name: 'Şifreyi sıfırladı' })).toBeInTheDocument();
    expect(within(log).getByText('tüm API anahtarları iptal edildi (2)')).toBeInTheDocument();
    // A company sign-in that took back an unconfirmed account says what whoever registered it lost.
    expect(within(log).getByRole('cell', { name: 'Şirket hesabını bağladı (adresi onunla doğrulandı)' })).toBeInTheDocument();
    expect(within(log).getByText('adres doğrulanmadan önce belirlenen parola kaldırıldı · tüm API anahtarları iptal edildi (1)')).toBeInTheDocument();
  });
});
