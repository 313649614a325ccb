/** An organisation's settings: how its members sign in, and how its evidence treats faces (issue 30). */
import { NotFoundError, settingChanged, type AuditSource } from '@baret/platform';
import { settingsOf } from '../readModels/orgs.js';
import { requireMember } from './access.js';
import type { OrgDeps } from './deps.js';
import { ORG_SETTING_KEYS, type OrgSettings } from './org.js';

/** An organisation setting that changed, in the audit log once (keyed by its event and the setting; ADR 0023). */
async function auditSetting(deps: OrgDeps, byUserId: string, orgId: string, name: string, value: boolean | string, eventId: string, from: AuditSource) {
  await deps.audit?.record(settingChanged({ by: byUserId, name, scope: 'org', value: String(value), orgId, from, key: eventId }));
}

/** Whether a user may log in with a password: not when their organisation turned it off. */
export async function passwordLoginAllowed(deps: OrgDeps, userId: string): Promise<boolean> {
  const m = await deps.queries.membershipOf(userId);
  if (!m) return true;
  return (await deps.queries.org(m.org_id))?.password_login ?? true;
}

/** How the organisation's members sign in: what its members see, what its managers (and admins) change. */
export async function signInSettings(deps: OrgDeps, byUserId: string, isAdmin: boolean, orgId: string) {
  const org = isAdmin ? await deps.queries.org(orgId) : (await requireMember(deps, orgId, byUserId)).org;
  if (!org) throw new NotFoundError('This organisation does not exist.');
  return { password_login: org.password_login ?? true };
}

export async function setPasswordLogin(deps: OrgDeps, byUserId: string, isAdmin: boolean, orgId: string, enabled: boolean, from: AuditSource = {}) {
  if (!isAdmin) await requireMember(deps, orgId, byUserId);
  const result = await deps.onOrg(orgId, { type: 'set_password_login', data: { enabled, by: byUserId, admin: isAdmin, now: deps.clock() } });
  const changed = result.recorded.find((e) => e.type === 'org_password_login_changed');
  if (changed) await auditSetting(deps, byUserId, orgId, 'password_login', enabled, changed.id, from);
  deps.log.info({ org_id: orgId, by: byUserId, enabled }, 'organisation password login changed');
  return signInSettings(deps, byUserId, isAdmin, orgId);
}

/** The organisation's settings (issue 30): every member may read them, so workers know who sees their faces. */
export async function settings(deps: OrgDeps, byUserId: string, orgId: string): Promise<OrgSettings> {
  const { org } = await requireMember(deps, orgId, byUserId);
  return settingsOf(org);
}

/** A manager changes settings; the answer is the settings after the change. */
export async function changeSettings(deps: OrgDeps, byUserId: string, orgId: string, patch: Partial<OrgSettings>, from: AuditSource = {}): Promise<OrgSettings> {
  await requireMember(deps, orgId, byUserId);
  const result = await deps.onOrg(orgId, { type: 'change_org_settings', data: { by: byUserId, settings: patch, now: deps.clock() } });
  for (const e of result.recorded.filter((x) => x.type === 'org_settings_changed')) {
    const data = e.data as Partial<OrgSettings>;
    for (const key of ORG_SETTING_KEYS) if (typeof data[key] === 'boolean') await auditSetting(deps, byUserId, orgId, key, data[key], e.id, from);
    if (typeof data.time_zone === 'string') await auditSetting(deps, byUserId, orgId, 'time_zone', data.time_zone, e.id, from);
  }
  if (result.newEvents.length > 0) deps.log.info({ org_id: orgId, by: byUserId, changed: Object.keys(patch) }, 'organisation settings changed');
  const org = await deps.queries.org(orgId);
  if (!org) throw new NotFoundError('This organisation does not exist.');
  return settingsOf(org);
}
