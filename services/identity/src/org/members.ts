/** The members of an organisation: who they are, their roles, leaving, and joining by single sign-on. */
import { NotFoundError, type AuditSource, type OrgRole } from '@baret/platform';
import type { MembershipCommand } from '../membership/businessLogic.js';
import { requireMember } from './access.js';
import type { OrgCommand } from './businessLogic.js';
import type { OrgDeps } from './deps.js';

export async function members(deps: OrgDeps, byUserId: string, orgId: string) {
  const { users, queries } = deps;
  await requireMember(deps, orgId, byUserId);
  const rows = await queries.membersOf(orgId);
  const byId = new Map((await users.byIds(rows.map((r) => r.id))).map((u) => [u.id, u]));
  const list = rows.flatMap((r) => {
    const u = byId.get(r.id);
    return u && r.role ? [{ user_id: r.id, email: u.email, full_name: u.full_name, role: r.role, joined_at: r.joined_at ?? u.created_at }] : [];
  });
  // Managers first, then by when they joined.
  return list.sort((a, b) => (a.role === b.role ? 0 : a.role === 'manager' ? -1 : 1) || a.joined_at.localeCompare(b.joined_at) || a.email.localeCompare(b.email));
}

/**
 * What a manager (or the member themselves, or the system) does to a member: the caller must be in
 * the organisation (else it does not exist for them: 404); the organisation's stream decides who
 * may (managers; the last manager stays), then the member's membership stream, which the
 * principal reads, follows. Returns the organisation's result (its recorded events).
 */
async function onMember(deps: OrgDeps, byUserId: string | 'system', orgId: string, userId: string, commands: (now: Date) => { org: OrgCommand; membership: MembershipCommand }) {
  if (byUserId !== 'system') await requireMember(deps, orgId, byUserId);
  const { org, membership } = commands(deps.clock());
  const result = await deps.onOrg(orgId, org);
  await deps.onMembership(userId, membership);
  return result;
}

/** A manager removes a member, or a member leaves; their jobs stay with the organisation. */
export async function removeMember(deps: OrgDeps, byUserId: string | 'system', orgId: string, userId: string) {
  await onMember(deps, byUserId, orgId, userId, (now) => ({
    org: { type: 'remove_member', data: { user_id: userId, by: byUserId, system: byUserId === 'system', now } },
    membership: { type: 'leave_org', data: { user_id: userId, org_id: orgId, now } },
  }));
  deps.log.info({ org_id: orgId, user_id: userId, by: byUserId }, 'member removed');
}

/**
 * A manager gives a member another role (issue 30): decided on the organisation's stream (only
 * managers; the last manager cannot demote themselves), then on the member's membership stream,
 * which the principal reads. Recorded in the audit log once, keyed by the event.
 */
export async function changeRole(deps: OrgDeps, byUserId: string, orgId: string, userId: string, role: OrgRole, from: AuditSource = {}) {
  const result = await onMember(deps, byUserId, orgId, userId, (now) => ({
    org: { type: 'change_member_role', data: { user_id: userId, role, by: byUserId, now } },
    membership: { type: 'change_role', data: { user_id: userId, org_id: orgId, role, now } },
  }));
  const changed = result.recorded.find((e) => e.type === 'org_member_role_changed');
  if (changed) {
    const data = changed.data as { previous_role: string };
    await deps.audit?.record({
      action: 'member.role_changed',
      actorId: byUserId,
      orgId,
      objectType: 'user',
      objectId: userId,
      ip: from.ip,
      userAgent: from.userAgent,
      details: { role, previous_role: data.previous_role },
      key: changed.id,
    });
    deps.log.info({ org_id: orgId, user_id: userId, by: byUserId, role }, 'member role changed');
  }
  const member = (await members(deps, byUserId, orgId)).find((m) => m.user_id === userId);
  if (!member) throw new NotFoundError('This person is not a member of the organisation.');
  return member;
}

/** A deleted account leaves its organisation. */
export async function userDeleted(deps: OrgDeps, userId: string) {
  const m = await deps.queries.membershipOf(userId);
  if (m) await removeMember(deps, 'system', m.org_id, userId);
}

/**
 * Single sign-on (issue 30): a user created by their first sign-in joins the organisation their
 * address's domain is configured for, as a member. Membership first, as for an invitation. False
 * when they could not join (already in another organisation, or the organisation is gone).
 */
export async function joinBySso(deps: OrgDeps, userId: string, orgId: string): Promise<boolean> {
  const { queries, log, clock, onOrg, onMembership } = deps;
  if (!(await queries.org(orgId))) {
    log.warn({ org_id: orgId }, 'single sign-on: the organisation configured for the domain does not exist');
    return false;
  }
  const now = clock();
  try {
    await onMembership(userId, { type: 'join_org', data: { user_id: userId, org_id: orgId, role: 'member', now } });
  } catch (e) {
    log.info({ org_id: orgId, user_id: userId, err: e instanceof Error ? e.message : String(e) }, 'single sign-on: not added to the organisation');
    return false;
  }
  try {
    await onOrg(orgId, { type: 'add_sso_member', data: { user_id: userId, now } });
  } catch (e) {
    await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: orgId, now: clock() } });
    throw e;
  }
  log.info({ org_id: orgId, user_id: userId }, 'single sign-on: joined the organisation as a member');
  return true;
}
