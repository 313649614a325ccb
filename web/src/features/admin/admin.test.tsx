import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import { admin, quota } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { HttpResponse, http, server } from '@/testing/server';
import type { UserQuotaRow } from '@/types/api';

const USAGE = {
  total_prompt_tokens: 123456,
  total_completion_tokens: 7890,
  total_cost: 1.23456,
  currency: 'USD',
  users: [
    { user_id: 'u1', email: 'ayse@example.com', full_name: 'Ayşe Yılmaz', job_count: 4, total_prompt_tokens: 1000, total_completion_tokens: 200, total_cost: 0.5 },
    { user_id: 'u2', email: 'mehmet@example.com', full_name: null, job_count: 1, total_prompt_tokens: 10, total_completion_tokens: 2, total_cost: 0.01 },
  ],
};

let rows: UserQuotaRow[];
let patches: { id: string; body: unknown }[];

beforeEach(() => {
  rows = [
    { user_id: 'u1', email: 'ayse@example.com', full_name: 'Ayşe Yılmaz', quota: quota({ plan_name: 'free', lifetime_limit: 2, monthly_limit: 50 }) },
    { user_id: 'u2', email: 'mehmet@example.com', full_name: null, quota: quota({ plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null }) },
  ];
  patches = [];
  server.use(
    http.get('*/admin/usage', () => HttpResponse.json(USAGE)),
    http.get('*/admin/users/quotas', () => HttpResponse.json(rows)),
    http.patch('*/admin/users/:id/quota', async ({ params, request }) => {
      const body = await request.json();
      patches.push({ id: String(params.id), body });
      const row = rows.find((r) => r.user_id === params.id)!;
      row.quota = { ...row.quota, ...(body as object) };
      return HttpResponse.json(row);
    }),
  );
});

const limit = (field: 'Günlük limit' | 'Aylık limit' | 'Ömür boyu limit', who: string) => screen.getByRole('textbox', { name: `${who} için ${field}` });

describe('admin page', () => {
  it('shows platform totals and a searchable per-user usage table', async () => {
    renderApp('/dashboard/admin', { user: admin() });
    const totals = await screen.findByRole('region', { name: 'Platform toplamları' });
    expect(await within(totals).findByText('123.456')).toBeInTheDocument();
    expect(within(totals).getByText('7.890')).toBeInTheDocument();
    expect(within(totals).getByText('1,2346 USD')).toBeInTheDocument();
    const usage = screen.getByRole('region', { name: 'Kullanıcı bazında kullanım' });
    expect(within(usage).getAllByRole('row')).toHaveLength(3);
    await userEvent.setup().type(within(usage).getByRole('searchbox', { name: 'Kullanıcı ara' }), 'mehmet');
    expect(within(usage).getAllByRole('row')).toHaveLength(2);
    expect(within(usage).getByRole('row', { name: /mehmet@example.com/ })).toHaveTextContent('0,0100 USD');
    await userEvent.setup().type(within(usage).getByRole('searchbox', { name: 'Kullanıcı ara' }), 'nobody');
    expect(within(usage).getByText('Eşleşen kullanıcı yok.')).toBeInTheDocument();
  });

  it('says there is no usage yet (not "no match") before the first job', async () => {
    server.use(http.get('*/admin/usage', () => HttpResponse.json({ ...USAGE, users: [] })));
    renderApp('/dashboard/admin', { user: admin() });
    const usage = await screen.findByRole('region', { name: 'Kullanıcı bazında kullanım' });
    expect(await within(usage).findByText('Henüz analiz yok: kullanım ilk işten sonra burada görünür.')).toBeInTheDocument();
  });

  it('marks invalid limits, blocks save with the message, and never sends', async () => {
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await screen.findByText('Ayşe Yılmaz', { selector: '.quota-user-name' });
    const who = 'Ayşe Yılmaz (ayse@example.com)';
    await u.type(limit('Günlük limit', who), '-1');
    expect(limit('Günlük limit', who)).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('0 veya daha büyük tam sayı girin')).toBeInTheDocument();
    const row = limit('Günlük limit', who).closest('li')!;
    await u.click(within(row).getByRole('button', { name: 'Kaydet' }));
    expect(within(row).getByText("Lütfen 0'a eşit veya daha büyük tam sayılar girin.")).toBeInTheDocument();
    expect(patches).toEqual([]);
  });

  it('shows the English hint and message', async () => {
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await screen.findByText('Ayşe Yılmaz', { selector: '.quota-user-name' });
    await u.click(screen.getAllByRole('button', { name: 'EN English' })[0]!);
    const field = screen.getByRole('textbox', { name: 'Daily limit for Ayşe Yılmaz (ayse@example.com)' });
    await u.type(field, '1.5');
    expect(screen.getByText('Use whole numbers ≥ 0')).toBeInTheDocument();
    await u.click(within(field.closest('li')!).getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Please enter whole numbers greater than or equal to 0.')).toBeInTheDocument();
  });

  it('saves only the changed fields (empty plan → null), only when something changed', async () => {
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await screen.findByText('Ayşe Yılmaz', { selector: '.quota-user-name' });
    const who = 'Ayşe Yılmaz (ayse@example.com)';
    const row = limit('Günlük limit', who).closest('li')!;
    expect(within(row).getByRole('button', { name: 'Kaydet' })).toBeDisabled();
    expect(within(row).getByRole('button', { name: 'Sıfırla' })).toBeDisabled();

    await u.type(limit('Günlük limit', who), '5');
    await u.clear(within(row).getByRole('combobox', { name: `${who} için plan` }));
    await u.click(within(row).getByRole('button', { name: 'Kaydet' }));
    await waitFor(() => expect(patches).toEqual([{ id: 'u1', body: { plan_name: null, daily_limit: 5 } }]));
    expect(await within(row).findByText('Kaydedildi.')).toBeInTheDocument();
  });

  it('fills the draft from presets and resets it to the server value', async () => {
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await screen.findByText('Ayşe Yılmaz', { selector: '.quota-user-name' });
    const who = 'Ayşe Yılmaz (ayse@example.com)';
    const row = limit('Günlük limit', who).closest('li')!;
    await u.click(within(row).getByRole('button', { name: 'Pro (Günde 10, ayda 100 analiz)' }));
    expect(within(row).getByRole('combobox', { name: `${who} için plan` })).toHaveValue('pro');
    expect(limit('Günlük limit', who)).toHaveValue('10');
    expect(limit('Aylık limit', who)).toHaveValue('100');
    expect(limit('Ömür boyu limit', who)).toHaveValue('');
    await u.click(within(row).getByRole('button', { name: 'Sıfırla' }));
    expect(within(row).getByRole('combobox', { name: `${who} için plan` })).toHaveValue('free');
    expect(limit('Aylık limit', who)).toHaveValue('50');
    expect(limit('Ömür boyu limit', who)).toHaveValue('2');

    const other = 'mehmet@example.com';
    const otherRow = limit('Günlük limit', other).closest('li')!;
    await u.click(within(otherRow).getByRole('button', { name: 'Ücretsiz (Ömür boyu 2 analiz)' }));
    expect(limit('Günlük limit', other)).toHaveValue('');
    expect(limit('Aylık limit', other)).toHaveValue('');
    expect(limit('Ömür boyu limit', other)).toHaveValue('2');
    await u.click(within(otherRow).getByRole('button', { name: 'Kaydet' }));
    await waitFor(() => expect(patches).toEqual([{ id: 'u2', body: { plan_name: 'free', daily_limit: null, monthly_limit: null, lifetime_limit: 2 } }]));
  });

  it('reports a failed quota update', async () => {
    server.use(http.patch('*/admin/users/:id/quota', () => HttpResponse.json({}, { status: 500 })));
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await screen.findByText('Ayşe Yılmaz', { selector: '.quota-user-name' });
    await u.type(limit('Günlük limit', 'Ayşe Yılmaz (ayse@example.com)'), '3');
    await u.click(within(limit('Günlük limit', 'Ayşe Yılmaz (ayse@example.com)').closest('li')!).getByRole('button', { name: 'Kaydet' }));
    expect(await screen.findByText('Kota güncellenemedi. Lütfen tekrar deneyin.')).toBeInTheDocument();
  });

  it('deletes a user after a confirmation saying their jobs go too, and reports failures', async () => {
    const deleted: string[] = [];
    let fail = true;
    server.use(
      http.delete('*/admin/users/:id', ({ params }) => {
        if (fail) return HttpResponse.json({}, { status: 500 });
        deleted.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/dashboard/admin', { user: admin() });
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Kullanıcıyı sil (mehmet@example.com)' }));
    const dialog = screen.getByRole('dialog', { name: 'Bu kullanıcı silinsin mi?' });
    expect(dialog).toHaveTextContent('mehmet@example.com ve tüm işleri kalıcı olarak silinecek.');
    await u.click(within(dialog).getByRole('button', { name: 'Kullanıcıyı sil' }));
    expect(await screen.findByText('Kullanıcı silinemedi.')).toBeInTheDocument();
    fail = false;
    await u.click(screen.getByRole('button', { name: 'Kullanıcıyı sil (mehmet@example.com)' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Kullanıcıyı sil' }));
    await waitFor(() => expect(deleted).toEqual(['u2']));
  });

  it('has no delete button on the admin’s own row', async () => {
    rows.push({ user_id: 'a1', email: 'admin@example.com', full_name: 'Admin Kişi', quota: quota({ plan_name: 'enterprise', lifetime_limit: null }) });
    renderApp('/dashboard/admin', { user: admin() });
    expect(await screen.findByRole('button', { name: 'Kullanıcıyı sil (mehmet@example.com)' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Kullanıcıyı sil \(admin@example.com\)/ })).not.toBeInTheDocument();
    expect(screen.getByText('Siz')).toBeInTheDocument();
  });

  it('lists upgrade requests and contact messages newest first with the sender, and marks them handled', async () => {
    const marks: unknown[] = [];
    const items = [
      { id: 'm2', kind: 'contact', name: 'Can Demir', email: 'can@example.com', subject: 'Demo', message: 'Twelve crews, one demo please.', origin: null, created_at: '2025-03-05T09:00:00Z', handled: false, handled_at: null },
      { id: 'm1', kind: 'contact', name: null, email: 'old@example.com', subject: null, message: 'An older message here.', origin: null, created_at: '2025-03-01T09:00:00Z', handled: true, handled_at: '2025-03-02T09:00:00Z' },
    ];
    const upgrades = [{ id: 'r1', kind: 'upgrade_request', name: null, email: 'ayse@example.com', subject: null, message: null, origin: 'pricing', created_at: '2025-03-04T09:00:00Z', handled: false, handled_at: null }];
    server.use(
      http.get('*/admin/inbox', ({ request }) => HttpResponse.json(new URL(request.url).searchParams.get('kind') === 'contact' ? items : upgrades)),
      http.post('*/admin/inbox/:id/handled', async ({ params, request }) => {
        const body = (await request.json()) as { handled: boolean };
        marks.push({ id: params.id, ...body });
        const item = items.find((i) => i.id === params.id)!;
        Object.assign(item, { handled: body.handled, handled_at: body.handled ? '2025-03-06T00:00:00Z' : null });
        return HttpResponse.json(item);
      }),
    );
    renderApp('/dashboard/admin', { user: admin() });
    const contacts = await screen.findByRole('region', { name: /İletişim mesajları/ });
    const list = await within(contacts).findByRole('list');
    const entries = within(list).getAllByRole('listitem');
    expect(entries[0]).toHaveTextContent('Can Demir · can@example.com');
    expect(entries[0]).toHaveTextContent('Twelve crews, one demo please.');
    expect(entries[0]).toHaveTextContent('Bekliyor');
    expect(entries[1]).toHaveTextContent('İlgilenildi');
    const requests = screen.getByRole('region', { name: /Yükseltme talepleri/ });
    expect(await within(requests).findByText('ayse@example.com')).toBeInTheDocument();
    expect(within(requests).getByText('Nereden: Fiyatlandırma sayfası')).toBeInTheDocument();
    await userEvent.setup().click(within(contacts).getByRole('button', { name: 'İlgilenildi olarak işaretle (can@example.com)' }));
    await waitFor(() => expect(marks).toEqual([{ id: 'm2', handled: true }]));
    expect(await within(contacts).findByRole('button', { name: 'Yeniden aç (can@example.com)' })).toBeInTheDocument();
  });

  it('reports failed loads', async () => {
    server.use(
      http.get('*/admin/usage', () => HttpResponse.json({}, { status: 500 })),
      http.get('*/admin/users/quotas', () => HttpResponse.json({}, { status: 500 })),
    );
    renderApp('/dashboard/admin', { user: admin() });
    expect(await screen.findByText('Kullanım verileri yüklenemedi.')).toBeInTheDocument();
    expect(await screen.findByText('Kota verileri yüklenemedi.')).toBeInTheDocument();
  });
});
