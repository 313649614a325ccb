import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { useDeleteUser } from '@/features/admin/api/delete-user';
import { useUsage } from '@/features/admin/api/get-usage';
import { useUserQuotas } from '@/features/admin/api/get-user-quotas';
import { useOrgQuotas, useUpdateOrgQuota } from '@/features/admin/api/org-quotas';
import { InboxSection } from '@/features/admin/components/inbox-section';
import { OutboxSection } from '@/features/admin/components/outbox-section';
import { QuotaEditor } from '@/features/admin/components/quota-editor';
import { SettingsSection } from '@/features/admin/components/settings-section';
import { RetentionSetting } from '@/components/retention-setting';
import { useAuth } from '@/lib/auth';
import { formatCost, formatNumber } from '@/lib/format';
import { PLAN_IDS, planLabel } from '@/lib/plans';
import type { UserQuotaRow } from '@/types/api';

function matches(search: string, ...values: (string | null | undefined)[]): boolean {
  const needle = search.trim().toLowerCase();
  return !needle || values.some((v) => (v ?? '').toLowerCase().includes(needle));
}

function UsageSection() {
  const { t, i18n } = useTranslation();
  const usage = useUsage();
  const [search, setSearch] = useState('');
  const users = useMemo(() => (usage.data?.users ?? []).filter((u) => matches(search, u.email, u.full_name)), [usage.data, search]);
  const lang = i18n.language;
  const currency = usage.data?.currency || 'USD';
  return (
    <>
      <section aria-labelledby="totals-title">
        <h2 id="totals-title" className="section-label">
          {t('admin.totals.title')}
        </h2>
        {usage.isError ? <Alert tone="error">{t('errors.usageLoad')}</Alert> : null}
        {usage.isPending ? (
          <Spinner label={t('common.loading')} />
        ) : usage.data ? (
          <dl className="stats stats-cards">
            <div className="stat">
              <dt>{t('admin.totals.prompt')}</dt>
              <dd>{formatNumber(usage.data.total_prompt_tokens, lang)}</dd>
            </div>
            <div className="stat">
              <dt>{t('admin.totals.completion')}</dt>
              <dd>{formatNumber(usage.data.total_completion_tokens, lang)}</dd>
            </div>
            <div className="stat">
              <dt>{t('admin.totals.cost')}</dt>
              <dd>{formatCost(usage.data.total_cost, currency, lang)}</dd>
            </div>
          </dl>
        ) : null}
      </section>
      <Card title={t('admin.vision.title')} titleId="vision-title" lead={t('admin.vision.offline')} leadSmall>
        <p className="muted small">{t('admin.vision.how')}</p>
      </Card>
      <Card
        title={t('admin.usage.title')}
        titleId="usage-title"
        actions={
          <div className="search">
            <label htmlFor="usage-search" className="visually-hidden">
              {t('admin.usage.search')}
            </label>
            <input id="usage-search" type="search" className="input" placeholder={t('admin.usage.search')} value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
        }
      >
        {usage.data ? (
          users.length === 0 ? (
            <p className="muted">{search.trim() ? t('admin.usage.empty') : t('admin.usage.none')}</p>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">{t('admin.usage.user')}</th>
                    <th scope="col" className="num">
                      {t('admin.usage.jobs')}
                    </th>
                    <th scope="col" className="num">
                      {t('admin.usage.prompt')}
                    </th>
                    <th scope="col" className="num">
                      {t('admin.usage.completion')}
                    </th>
                    <th scope="col" className="num">
                      {t('admin.usage.cost')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((u) => (
                    <tr key={u.user_id}>
                      <th scope="row">
                        <div>{u.full_name || u.email}</div>
                        {u.full_name ? <div className="muted small">{u.email}</div> : null}
                      </th>
                      <td className="num">{formatNumber(u.job_count, lang)}</td>
                      <td className="num">{formatNumber(u.total_prompt_tokens, lang)}</td>
                      <td className="num">{formatNumber(u.total_completion_tokens, lang)}</td>
                      <td className="num">{formatCost(u.total_cost, currency, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        ) : null}
      </Card>
    </>
  );
}

function QuotaSection() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const quotas = useUserQuotas();
  const remove = useDeleteUser();
  const [search, setSearch] = useState('');
  const [toDelete, setToDelete] = useState<UserQuotaRow | null>(null);
  const [deleteFailed, setDeleteFailed] = useState(false);
  const rows = (quotas.data ?? []).filter((r) => matches(search, r.email, r.full_name, r.quota.plan_name));

  const confirmDelete = async () => {
    if (!toDelete) return;
    setDeleteFailed(false);
    try {
      await remove.mutateAsync(toDelete.user_id);
    } catch {
      setDeleteFailed(true);
    } finally {
      setToDelete(null);
    }
  };

  return (
    <Card
      title={t('admin.quotas.title')}
      titleId="quotas-title"
      lead={t('admin.quotas.help')}
      leadSmall
      leadWithTitle
      actions={
        <div className="search">
          <label htmlFor="quota-search" className="visually-hidden">
            {t('admin.quotas.search')}
          </label>
          <input id="quota-search" type="search" className="input" placeholder={t('admin.quotas.search')} value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
      }
    >
      <datalist id="plan-names">
        {PLAN_IDS.map((id) => (
          <option key={id} value={id} label={planLabel(t, id)} />
        ))}
      </datalist>
      {quotas.isError ? <Alert tone="error">{t('errors.quotaLoad')}</Alert> : null}
      {deleteFailed ? <Alert tone="error">{t('errors.userDelete')}</Alert> : null}
      {quotas.isPending ? (
        <Spinner label={t('common.loading')} />
      ) : (
        <ul className="quota-list">
          {rows.map((row) => (
            <QuotaEditor key={row.user_id} row={row} onDelete={row.user_id === user?.id ? undefined : setToDelete} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={toDelete !== null}
        title={t('admin.quotas.confirmDeleteTitle')}
        message={t('admin.quotas.confirmDelete', { who: toDelete?.email ?? '' })}
        confirmLabel={t('admin.quotas.deleteUser')}
        cancelLabel={t('common.back')}
        closeLabel={t('common.close')}
        busy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      />
    </Card>
  );
}

/** Organisations' plans and quotas, edited like a user's (issue 28). */
function OrgQuotaSection() {
  const { t } = useTranslation();
  const orgs = useOrgQuotas();
  const update = useUpdateOrgQuota();
  if (!orgs.data || orgs.data.length === 0) return null;
  return (
    <Card title={t('admin.orgQuotas.title')} titleId="org-quotas-title" lead={t('admin.orgQuotas.help')} leadSmall>
      <ul className="quota-list">
        {orgs.data.map((o) => (
          <QuotaEditor
            key={o.org_id}
            row={{ user_id: o.org_id, email: t('admin.orgQuotas.members', { count: o.member_count }), full_name: o.name, quota: o.quota }}
            saveOrg={(changes) => update.mutateAsync({ orgId: o.org_id, changes })}
          />
        ))}
      </ul>
    </Card>
  );
}

/** `auditLog`: the whole audit log, composed by the route (issue 30). */
export function AdminPage({ auditLog }: { auditLog?: ReactNode } = {}) {
  const { t } = useTranslation();
  const { isAdmin } = useAuth();
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('admin.title')}</h1>
          <p className="muted">{t('admin.subtitle')}</p>
        </div>
      </header>
      {isAdmin ? (
        <div className="stack-lg">
          <UsageSection />
          <InboxSection />
          <OutboxSection />
          <QuotaSection />
          <SettingsSection />
          <RetentionSetting />
          <OrgQuotaSection />
          {auditLog}
        </div>
      ) : (
        <Alert tone="warning">{t('admin.noRights')}</Alert>
      )}
    </div>
  );
}
