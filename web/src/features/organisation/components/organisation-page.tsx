import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { ConfirmDialog } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { SignInSettings } from '@/features/organisation/components/sign-in-settings';
import { useArchiveUnit, useChangeRole, useCreateOrg, useCreateUnit, useInvite, useMembers, usePendingInvites, useRemoveMember } from '@/features/organisation/api/org-admin';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { formatDateTime, formatNumber } from '@/lib/format';
import { planLabel } from '@/lib/plans';
import { useCurrentOrg, useOrgUnits, type UnitKind } from '@/lib/org';
import { PrivacySettings } from '@/features/organisation/components/privacy-settings';
import { TimeZoneSetting } from '@/features/organisation/components/time-zone-setting';
import type { CreatedInvite, Org, OrgMember, OrgRole } from '@/types/api';
import { RetentionSetting } from '@/components/retention-setting';

function CreateOrg() {
  const { t } = useTranslation();
  const create = useCreateOrg();
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  };
  return (
    <Card title={t('org.createTitle')} titleId="org-create-title" lead={t('org.createIntro')}>
      <form onSubmit={submit} className="stack-lg">
        <Field label={t('org.name')}>{(p) => <input {...p} className="input" value={name} maxLength={120} required onChange={(e) => setName(e.target.value)} />}</Field>
        {create.isError ? <Alert tone="error">{serverReason(create.error) ?? t('org.failed')}</Alert> : null}
        <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
          {t('org.create')}
        </Button>
      </form>
    </Card>
  );
}

function Members({ org }: { org: Org }) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const members = useMembers(org.id);
  const remove = useRemoveMember(org.id);
  const changeRole = useChangeRole(org.id);
  const [pending, setPending] = useState<OrgMember | null>(null);
  const manager = org.role === 'manager';
  return (
    <Card className="org-members" title={t('org.members')} titleId="org-members-title">
      {members.isPending ? <Spinner label={t('common.loading')} /> : null}
      {remove.isError ? <Alert tone="error">{serverReason(remove.error) ?? t('errors.actionFailed')}</Alert> : null}
      {changeRole.isError ? <Alert tone="error">{serverReason(changeRole.error) ?? t('errors.actionFailed')}</Alert> : null}
      {members.data ? (
        <div className="table-wrap">
          <table className="table table-stack">
            <thead>
              <tr>
                <th scope="col">{t('org.member')}</th>
                <th scope="col">{t('org.role')}</th>
                <th scope="col">{t('org.joined')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('org.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => (
                <tr key={m.user_id}>
                  <th scope="row">
                    {m.full_name ? `${m.full_name} · ` : ''}
                    {m.email}
                  </th>
                  <td data-label={t('org.role')}>
                    {manager ? (
                      <select
                        className="input role-select"
                        aria-label={t('org.roleOf', { name: m.full_name ?? m.email })}
                        value={m.role}
                        disabled={changeRole.isPending}
                        onChange={(e) => changeRole.mutate({ userId: m.user_id, role: e.target.value as OrgRole })}
                      >
                        <option value="member">{t('org.role_member')}</option>
                        <option value="manager">{t('org.role_manager')}</option>
                      </select>
                    ) : (
                      <Badge tone={m.role === 'manager' ? 'accent' : 'neutral'}>{t(`org.role_${m.role}`)}</Badge>
                    )}
                  </td>
                  <td data-label={t('org.joined')}>{formatDateTime(m.joined_at, i18n.language)}</td>
                  <td className="cell-action">
                    {manager || m.user_id === user?.id ? (
                      <Button size="sm" variant="ghost" onClick={() => setPending(m)}>
                        {m.user_id === user?.id ? t('org.leave') : t('org.remove')}
                      </Button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ConfirmDialog
        open={pending !== null}
        title={pending?.user_id === user?.id ? t('org.leave') : t('org.remove')}
        message={t('org.removeConfirm', { name: pending?.full_name ?? pending?.email ?? '' })}
        confirmLabel={pending?.user_id === user?.id ? t('org.leave') : t('org.remove')}
        cancelLabel={t('common.cancel')}
        closeLabel={t('common.close')}
        busy={remove.isPending}
        onCancel={() => setPending(null)}
        onConfirm={() => {
          if (pending) remove.mutate(pending.user_id, { onSettled: () => setPending(null) });
        }}
      />
    </Card>
  );
}

function Invites({ org }: { org: Org }) {
  const { t, i18n } = useTranslation();
  const invite = useInvite(org.id);
  const pending = usePendingInvites(org.id, true);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const [copied, setCopied] = useState(false);
  const link = created ? `${window.location.origin}${created.url}` : '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCopied(false);
    invite.mutate({ email: email.trim(), role }, { onSuccess: (c) => (setCreated(c), setEmail('')) });
  };
  return (
    <Card title={t('org.inviteTitle')} titleId="org-invite-title">
      <form onSubmit={submit} className="inline-form">
        <Field label={t('org.email')}>{(p) => <input {...p} type="email" className="input" value={email} required maxLength={254} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label={t('org.role')}>
          {(p) => (
            <select {...p} className="input" value={role} onChange={(e) => setRole(e.target.value as OrgRole)}>
              <option value="member">{t('org.role_member')}</option>
              <option value="manager">{t('org.role_manager')}</option>
            </select>
          )}
        </Field>
        <Button type="submit" loading={invite.isPending} disabled={!email.trim()}>
          {t('org.invite')}
        </Button>
      </form>
      {invite.isError ? <Alert tone="error">{serverReason(invite.error) ?? t('org.failed')}</Alert> : null}
      {created ? (
        <Alert tone="success" title={t('org.inviteCreated', { email: created.email })}>
          <p>{t('org.inviteShare')}</p>
          <p>
            <code className="invite-link" data-testid="invite-link">
              {link}
            </code>
          </p>
          <Button size="sm" variant="secondary" onClick={() => void navigator.clipboard?.writeText(link).then(() => setCopied(true), () => undefined)}>
            {copied ? t('org.copied') : t('org.copy')}
          </Button>
        </Alert>
      ) : null}
      {pending.data && pending.data.length > 0 ? (
        <>
          <h3 className="card-subtitle">{t('org.pendingInvites')}</h3>
          <ul className="plain-list">
            {pending.data.map((i) => (
              <li key={i.invite_id}>
                {i.email} · {t(`org.role_${i.role}`)} · {t('org.expires', { date: formatDateTime(i.expires_at, i18n.language) })}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}

function Units({ org, kind }: { org: Org; kind: UnitKind }) {
  const { t } = useTranslation();
  const units = useOrgUnits(org.id, kind, true);
  const create = useCreateUnit(org.id, kind);
  const archive = useArchiveUnit(org.id, kind);
  const [name, setName] = useState('');
  const [city, setCity] = useState('');
  const manager = org.role === 'manager';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name: name.trim(), city: city.trim() || null }, { onSuccess: () => (setName(''), setCity('')) });
  };
  const title = t(kind === 'site' ? 'org.sites' : 'org.crews');
  return (
    <Card title={title} aria-label={title}>
      {units.isPending ? <Spinner label={t('common.loading')} /> : null}
      {units.data && units.data.length === 0 ? <p className="muted">{t(kind === 'site' ? 'org.noSites' : 'org.noCrews')}</p> : null}
      <ul className="plain-list">
        {(units.data ?? []).map((u) => (
          <li key={u.id} className="unit-row">
            <span>
              {u.name}
              {u.city ? <span className="muted"> · {u.city}</span> : null}
              {u.archived ? (
                <>
                  {' '}
                  <Badge tone="neutral">{t('org.archived')}</Badge>
                </>
              ) : null}
            </span>
            {manager && !u.archived ? (
              <Button size="sm" variant="ghost" onClick={() => archive.mutate(u.id)} aria-label={t('org.archiveNamed', { name: u.name })}>
                {t('org.archive')}
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
      {manager ? (
        <form onSubmit={submit} className="inline-form">
          <Field label={t(kind === 'site' ? 'org.siteName' : 'org.crewName')}>{(p) => <input {...p} className="input" value={name} maxLength={120} required onChange={(e) => setName(e.target.value)} />}</Field>
          {kind === 'site' ? (
            <Field label={t('org.city')} optional={t('common.optional')}>
              {(p) => <input {...p} className="input" value={city} maxLength={80} onChange={(e) => setCity(e.target.value)} />}
            </Field>
          ) : null}
          <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
            {t(kind === 'site' ? 'org.addSite' : 'org.addCrew')}
          </Button>
        </form>
      ) : null}
      {create.isError ? <Alert tone="error">{serverReason(create.error) ?? t('org.failed')}</Alert> : null}
    </Card>
  );
}

/** `auditLog` renders the organisation's audit log for its managers (composed by the route: issue 30). */
export function OrganisationPage({ auditLog }: { auditLog?: (orgId: string) => ReactNode } = {}) {
  const { t, i18n } = useTranslation();
  const current = useCurrentOrg();
  const org = current.data;
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{org ? org.name : t('org.title')}</h1>
          <p className="muted">{org ? t('org.youAre', { role: t(`org.role_${org.role}`) }) : t('org.subtitle')}</p>
        </div>
      </header>
      {current.isPending ? <Spinner label={t('common.loading')} /> : null}
      {current.isError ? <Alert tone="error">{t('org.loadFailed')}</Alert> : null}
      {current.data === null ? <CreateOrg /> : null}
      {org ? (
        <div className="org-grid">
          <Card className="org-plan" title={t('org.plan')} titleId="org-plan-title">
            <dl className="stats">
              <div className="stat">
                <dt>{t('org.planName')}</dt>
                <dd>{planLabel(t, org.quota.plan_name)}</dd>
              </div>
              <div className="stat">
                <dt>{t('org.used')}</dt>
                <dd>{formatNumber(org.quota.lifetime_used, i18n.language)}</dd>
              </div>
              <div className="stat">
                <dt>{t('org.memberCount')}</dt>
                <dd>{formatNumber(org.member_count, i18n.language)}</dd>
              </div>
            </dl>
          </Card>
          <Members org={org} />
          {org.role === 'manager' ? <Invites org={org} /> : null}
          {org.role === 'manager' ? <SignInSettings org={org} /> : null}
          {org.role === 'manager' ? <RetentionSetting orgId={org.id} /> : null}
          <TimeZoneSetting org={org} />
          <Units org={org} kind="site" />
          <Units org={org} kind="crew" />
          {org.role === 'manager' && auditLog ? auditLog(org.id) : null}
          <PrivacySettings org={org} />
        </div>
      ) : null}
    </div>
  );
}
