/**
 * The audit log as a card (issue 30): filters, a table of entries newest first, "show more" (the
 * cursor) and a CSV download. Managers see it on the organisation page, admins on the admin page.
 */
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { AUDIT_ACTIONS, downloadAuditCsv, useAuditLog, useAuditPeople, type AuditFilters, type AuditScope } from '@/features/audit/api/audit';
import { formatDateTime } from '@/lib/format';
import { planLabel } from '@/lib/plans';
import type { AuditEntry } from '@/types/api';

type T = TFunction;

/** A value of the log as words: on/off, unlimited, a language, a plan; anything else as it is. */
function valueText(key: string, value: string, t: T): string {
  if (value === 'true' || value === 'false') return t(value === 'true' ? 'audit.value.on' : 'audit.value.off');
  if (value === 'unlimited' || value === 'null') return t('quota.unlimited');
  if (key === 'plan_name') return planLabel(t, value);
  if (key === 'lang') return t(`audit.value.lang_${value}`, { defaultValue: value });
  return value;
}

/** The entry's facts in words (issue 40: no raw English keys): the roles, a setting's new value, plan and limits, why a sign-in failed. */
function detailsText(entry: AuditEntry, t: T): string {
  const d = entry.details;
  const parts: string[] = [];
  if (d.role) parts.push(t('audit.detail.role', { from: d.previous_role ? t(`org.role_${d.previous_role}`) : '—', to: t(`org.role_${d.role}`) }));
  if (d.reason) parts.push(t(`audit.reason.${d.reason}`, { defaultValue: d.reason }));
  if (d.by) parts.push(t('audit.detail.by', { by: t(`audit.by.${d.by}`, { defaultValue: d.by }) }));
  if (d.api_keys) parts.push(d.api_keys === 'revoked' ? t('audit.detail.apiKeysRevoked', { count: Number(d.revoked ?? 0) }) : t('audit.detail.apiKeysKept'));
  if (d.password === 'removed') parts.push(t('audit.detail.passwordRemoved'), t('audit.detail.apiKeysRevoked', { count: Number(d.revoked ?? 0) }));
  if (d.value !== undefined) {
    const to = valueText('value', d.value, t);
    parts.push(d.previous !== undefined ? t('audit.detail.changed', { from: valueText('value', d.previous, t), to }) : to);
  }
  for (const key of ['plan_name', 'daily_limit', 'monthly_limit', 'lifetime_limit', 'lang', 'rows'] as const) {
    if (d[key] !== undefined) parts.push(t('audit.detail.pair', { key: t(`audit.keys.${key}`), value: valueText(key, d[key], t) }));
  }
  return parts.join(' · ');
}

/** What an entry was done to, in words: a setting's name, a person's name or address, a short id. */
function objectText(entry: AuditEntry, people: ReadonlyMap<string, string>, t: T): string {
  const id = entry.object_id ?? '';
  if (entry.object_type === 'setting') return t(`audit.settings.${id}`, { defaultValue: id });
  const person = people.get(id);
  if (person) return person;
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

export function AuditLog({ scope, headingLevel = 2 }: { scope: AuditScope; headingLevel?: 2 | 3 }) {
  const { t, i18n } = useTranslation();
  const [draft, setDraft] = useState<AuditFilters>({});
  const [filters, setFilters] = useState<AuditFilters>({});
  const log = useAuditLog(scope, filters);
  const people = useAuditPeople(scope);
  const names = new Map((people.data ?? []).map((p) => [p.id, p.label]));
  const objectFilter = filters.object ? { id: filters.object, label: draft.objectLabel ?? filters.object } : null;
  const filterByObject = (e: AuditEntry) => {
    if (!e.object_id) return;
    const next = { ...filters, object: e.object_id };
    setDraft({ ...draft, object: e.object_id, objectLabel: `${t(`audit.objects.${e.object_type}`)} ${objectText(e, names, t)}` });
    setFilters(next);
  };
  const [csvBusy, setCsvBusy] = useState(false);
  const [csvFailed, setCsvFailed] = useState(false);
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
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
    <Card
      className="audit-log"
      title={t('audit.title')}
      titleId={titleId}
      headingLevel={headingLevel}
      actions={
        <Button size="sm" variant="secondary" onClick={() => void csv()} loading={csvBusy}>
          {t('audit.downloadCsv')}
        </Button>
      }
      lead={t(scope.kind === 'org' ? 'audit.introOrg' : 'audit.introAdmin')}
    >
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
        <Field label={t('audit.actor')}>
          {(p) => (
            <select {...p} className="input" value={draft.actor ?? ''} onChange={(e) => setDraft({ ...draft, actor: e.target.value || undefined })}>
              <option value="">{t('audit.everyone')}</option>
              {(people.data ?? []).map((person) => (
                <option key={person.id} value={person.id}>
                  {person.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Button type="submit" variant="secondary">
          {t('audit.apply')}
        </Button>
      </form>
      {objectFilter ? (
        <p className="filter-chip">
          <span>{t('audit.onlyObject', { object: objectFilter.label })}</span>
          <Button
            size="sm"
            variant="ghost"
            onClick={() => {
              const { object: _o, objectLabel: _l, ...rest } = draft;
              setDraft(rest);
              setFilters({ ...filters, object: undefined });
            }}
          >
            {t('audit.clearObject')}
          </Button>
        </p>
      ) : null}
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
                    <span className="muted">{t(`audit.objects.${e.object_type}`)}</span>{' '}
                    {e.object_id && !filters.object ? (
                      <button type="button" className="text-link" title={e.object_id} aria-label={t('audit.filterObject', { object: `${t(`audit.objects.${e.object_type}`)} ${objectText(e, names, t)}` })} onClick={() => filterByObject(e)}>
                        {objectText(e, names, t)}
                      </button>
                    ) : (
                      <span title={e.object_id ?? undefined}>{objectText(e, names, t)}</span>
                    )}
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
    </Card>
  );
}
