/** Invitations: a manager invites an address, the invited user previews and accepts. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, type OrgRole } from '@baret/platform';
import { requireMember } from './access.js';
import { current } from './current.js';
import type { OrgDeps } from './deps.js';

/** How long an invitation can be accepted. */
export const INVITE_TTL_DAYS = 14;
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
/** The invitation page of the web app; the token is its last segment. */
export const inviteUrl = (token: string): string => `/invite/${token}`;

/**
 * A manager invites an address with a role; the token is shown once (the organisation's decisions
 * keep only its hash) and mailed to the address by the notification service.
 */
export async function invite(deps: OrgDeps, byUserId: string, orgId: string, email: string, role: OrgRole, origin?: string) {
  const { users, queries, log, clock, onOrg } = deps;
  await requireMember(deps, orgId, byUserId);
  const invitee = await users.byEmail(email);
  if (invitee && (await queries.membershipOf(invitee.id))?.org_id === orgId) throw new ConflictError('This person is already a member of the organisation.');
  const token = randomBytes(32).toString('base64url');
  const inviteId = randomUUID();
  const now = clock();
  const expires = new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000);
  await onOrg(orgId, { type: 'invite_member', data: { invite_id: inviteId, email, role, token, token_hash: sha256(token), by: byUserId, expires_at: expires, now, ...(origin ? { origin } : {}) } });
  log.info({ org_id: orgId, invite_id: inviteId, role }, 'invitation created');
  return { invite_id: inviteId, email: email.trim(), role, expires_at: expires.toISOString(), token, url: inviteUrl(token) };
}

export async function pendingInvites(deps: OrgDeps, byUserId: string, orgId: string) {
  const { role } = await requireMember(deps, orgId, byUserId);
  if (role !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  return (await deps.queries.pendingInvites(orgId, deps.clock())).map((i) => ({ invite_id: i.id, email: i.email, role: i.role, created_at: i.created_at, expires_at: i.expires_at }));
}

async function inviteOf(deps: OrgDeps, token: string) {
  const invite = await deps.queries.inviteByTokenHash(sha256(token));
  if (!invite || (!invite.accepted_by && Date.parse(invite.expires_at) <= deps.clock().getTime())) throw new NotFoundError('This invitation does not exist or has expired.');
  return invite;
}

/** What the invitation page shows before accepting. */
export async function previewInvite(deps: OrgDeps, token: string) {
  const invite = await inviteOf(deps, token);
  const org = await deps.queries.org(invite.org_id);
  if (!org) throw new NotFoundError('This invitation does not exist or has expired.');
  return { org_id: org.id, org_name: org.name, email: invite.email, role: invite.role, expires_at: invite.expires_at, accepted: invite.accepted_by !== null };
}

/** The invited user joins: their membership first (one organisation at most), then the organisation. */
export async function accept(deps: OrgDeps, userId: string, token: string) {
  const { users, log, clock, onOrg, onMembership } = deps;
  const user = await users.byId(userId);
  if (!user) throw new NotFoundError('This user does not exist.');
  const invite = await inviteOf(deps, token);
  if (invite.accepted_by === userId) return current(deps, userId);
  const now = clock();
  const joined = await onMembership(userId, { type: 'join_org', data: { user_id: userId, org_id: invite.org_id, role: invite.role, now } });
  try {
    await onOrg(invite.org_id, { type: 'accept_invite', data: { invite_id: invite.id, user_id: userId, email: user.email, now } });
  } catch (e) {
    if (joined.newEvents.length > 0) await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: invite.org_id, now: clock() } });
    throw e;
  }
  log.info({ org_id: invite.org_id, user_id: userId }, 'invitation accepted');
  return current(deps, userId);
}
