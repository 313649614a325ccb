/**
 * The audit log as a card (issue 30): filters, a table of entries newest first, "show more" (the
 * cursor) and a CSV download. Managers see it on the organisation page, admins on the admin page.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { AUDIT_ACTIONS, downloadAuditCsv, useAuditLog, type AuditFilters, type AuditScope } from '@/features/audit/api/audit';
import { formatDateTime } from '@/lib/format';
import type { AuditEntry } from '@/types/api';

/** The entry's facts in words: the roles, the value of a setting, why a sign-in failed. */
function detailsText(entry: AuditEntry, t: (key: string, options?: Record<string, unknown>) => string): string {
  const d = entry.details;
  const parts: string[] = [];
  if (d.role) parts.push(t('audit.detail.role', { from: d.previous_role ? t(`org.role_${d.previous_role}`) : '—', to: t(`org.role_${d.role}`) }));
  if (d.reason) parts.push(t(`audit.reason.${d.reason}`, { defaultValue: d.reason }));
  if (d.by) parts.push(t('audit.detail.by', { by: t(`audit.by.${d.by}`, { defaultValue: d.by }) }));
  if (d.api_keys) parts.push(d.api_keys === 'revoked' ? t('audit.detail.apiKeysRevoked', { count: Number(d.revoked ?? 0) }) : t('audit.detail.apiKeysKept'));
  if (d.value !== undefined) parts.push(`${entry.object_id ?? ''} = ${d.value}`);
  for (const key of ['plan_name', 'daily_limit', 'monthly_limit', 'lifetime_limit', 'lang', 'rows'] as const) if (d[key] !== undefined) parts.push(`${key}: ${d[key]}`);
  return parts.join(' · ');
}

export function AuditLog({ scope, headingLevel = 2 }: { scope: AuditScope; headingLevel?: 2 | 3 }) {
  const { t, i18n } = useTranslation();
  const [draft, setDraft] = useState<AuditFilters>({});
  const [filters, setFilters] = useState<AuditFilters>({});
  const log = useAuditLog(scope, filters);
  const [csvBusy, setCsvBusy] = useState(false);
  const [csvFailed, setCsvFailed] = useState(false);
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const titleId = `audit-title-${scope.kind}`;

  const csv = async () => {
    setCsvBusy(true);
    setCsvFailed(false);
    try {
      await downloadAuditCsv(scope, filters, i18n.language);
    } catch {
      setCsvFailed(true);
    } finally {
      setCsvBusy(false);
    }
  };

  return (
    <section className="card audit-log" aria-labelledby={titleId}>
      <div className="card-head">
        <Heading id={titleId} className="card-title">
          {t('audit.title')}
        </Heading>
        <Button size="sm" variant="secondary" onClick={() => void csv()} loading={csvBusy}>
          {t('audit.downloadCsv')}
        </Button>
      </div>
      <p className="muted">{t(scope.kind === 'org' ? 'audit.introOrg' : 'audit.introAdmin')}</p>
      {csvFailed ? <Alert tone="error">{t('audit.csvFailed')}</Alert> : null}
      <form
        className="filters"
        aria-label={t('audit.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <Field label={t('audit.from')}>{(p) => <input {...p} type="date" className="input" value={draft.from ?? ''} onChange={(e) => setDraft({ ...draft, from: e.target.value || undefined })} />}</Field>
        <Field label={t('audit.to')}>{(p) => <input {...p} type="date" className="input" value={draft.to ?? ''} onChange={(e) => setDraft({ ...draft, to: e.target.value || undefined })} />}</Field>
        <Field label={t('audit.action')}>
          {(p) => (
            <select {...p} className="input" value={draft.action ?? ''} onChange={(e) => setDraft({ ...draft, action: e.target.value || undefined })}>
              <option value="">{t('audit.allActions')}</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {t(`audit.actions.${a}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('audit.actor')}>{(p) => <input {...p} className="input" value={draft.actor ?? ''} maxLength={100} placeholder={t('audit.idPlaceholder')} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />}</Field>
        <Field label={t('audit.object')}>{(p) => <input {...p} className="input" value={draft.object ?? ''} maxLength={100} placeholder={t('audit.idPlaceholder')} onChange={(e) => setDraft({ ...draft, object: e.target.value })} />}</Field>
        <Button type="submit" variant="secondary">
          {t('audit.apply')}
        </Button>
      </form>
      {log.isPending ? <Spinner label={t('common.loading')} /> : null}
      {log.isError ? <Alert tone="error">{t('audit.loadFailed')}</Alert> : null}
      {log.data && entries.length === 0 ? <p className="muted">{t('audit.empty')}</p> : null}
      {entries.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">{t('audit.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('audit.when')}</th>
                <th scope="col">{t('audit.who')}</th>
                <th scope="col">{t('audit.what')}</th>
                <th scope="col">{t('audit.objectCol')}</th>
                <th scope="col">{t('audit.from_where')}</th>
                <th scope="col">{t('audit.detailsCol')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>{formatDateTime(e.at, i18n.language)}</td>
                  <th scope="row">{e.actor_email ?? (e.actor_id ? t('audit.deletedUser') : t('audit.nobody'))}</th>
                  <td>
                    {t(`audit.actions.${e.action}`, { defaultValue: e.action })}
                    {e.outcome === 'failure' ? (
                      <>
                        {' '}
                        <Badge tone="danger">{t('audit.failure')}</Badge>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <span className="muted">{t(`audit.objects.${e.object_type}`)}</span> <code>{e.object_id ?? ''}</code>
                  </td>
                  <td>
                    {e.ip ?? ''}
                    {e.user_agent ? <div className="muted small">{e.user_agent.slice(0, 60)}</div> : null}
                  </td>
                  <td>{detailsText(e, t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <Button variant="ghost" onClick={() => void log.fetchNextPage()} loading={log.isFetchingNextPage}>
          {t('audit.more')}
        </Button>
      ) : null}
    </section>
  );
}
