/**
 * Organisations: one function per use case (create, invite, accept, members, remove), each
 * deciding on the organisation's stream and the user's membership stream.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  ConflictError,
  ForbiddenError,
  handleCommand,
  KeyedMutex,
  NotFoundError,
  orgQuotaAccount,
  projectInline,
  type DocumentStore,
  type EventStore,
  type OrgRole,
  type Projection,
  type QuotaClient,
} from '@baret/platform';
import type { Logger } from 'pino';
import { membershipDecider, type MembershipCommand } from './membership/businessLogic.js';
import { membershipStream } from './membership/membership.js';
import { orgDecider, type OrgCommand } from './org/businessLogic.js';
import { orgStream } from './org/org.js';
import { membershipsProjection, orgQueries, orgsProjection, settingsOf, type OrgDoc } from './readModels/orgs.js';
import type { OrgSettings } from './org/org.js';
import type { UserQueries } from './readModels/users.js';

/** How long an invitation can be accepted. */
export const INVITE_TTL_DAYS = 14;
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
/** The invitation page of the web app; the token is its last segment. */
export const inviteUrl = (token: string): string => `/invite/${token}`;

export interface OrgsOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  users: UserQueries;
  quota: QuotaClient;
  log: Logger;
  clock: () => Date;
}

export const orgProjections: Projection[] = [orgsProjection, membershipsProjection];

export function createOrgs(opts: OrgsOptions) {
  const { eventStore, documents, users, log, clock } = opts;
  const queries = orgQueries(documents);

  // A command and its projection run as one per stream, so concurrent commands (invitations sent
  // at once) reach the read models in the order they were stored.
  const locks = new KeyedMutex();
  const onOrg = (orgId: string, command: OrgCommand) =>
    locks.run(orgStream(orgId), async () => {
      const result = await handleCommand(eventStore, orgStream(orgId), orgDecider, command);
      await projectInline(orgProjections, result.recorded, documents, eventStore);
      return result;
    });
  const onMembership = (userId: string, command: MembershipCommand) =>
    locks.run(membershipStream(userId), async () => {
      const result = await handleCommand(eventStore, membershipStream(userId), membershipDecider, command);
      await projectInline(orgProjections, result.recorded, documents, eventStore);
      return result;
    });

  /** What a member sees of their organisation, with its plan and quota. */
  async function view(org: OrgDoc, role: OrgRole) {
    return { id: org.id, name: org.name, role, created_at: org.created_at, member_count: org.member_count, quota: await opts.quota.getQuota(orgQuotaAccount(org.id)) };
  }

  /** The organisation `userId` belongs to; anyone else is told it does not exist. */
  async function requireMember(orgId: string, userId: string): Promise<{ org: OrgDoc; role: OrgRole }> {
    const m = await queries.membershipOf(userId);
    const org = m?.org_id === orgId ? await queries.org(orgId) : null;
    if (!m || !org) throw new NotFoundError('This organisation does not exist.');
    return { org, role: m.role };
  }

  /** A user creates an organisation and becomes its manager (only while in none). */
  async function createOrg(userId: string, name: string) {
    const orgId = randomUUID();
    const now = clock();
    // The membership first: it is the guard of "at most one organisation".
    await onMembership(userId, { type: 'join_org', data: { user_id: userId, org_id: orgId, role: 'manager', now } });
    try {
      await onOrg(orgId, { type: 'create_org', data: { org_id: orgId, name, user_id: userId, now } });
    } catch (e) {
      await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: orgId, now: clock() } });
      throw e;
    }
    log.info({ org_id: orgId, user_id: userId }, 'organisation created');
    const org = await queries.org(orgId);
    if (!org) throw new Error('created organisation missing from the read model');
    return view(org, 'manager');
  }

  /** The organisation a user belongs to now, or null. */
  async function currentOrNull(userId: string) {
    const m = await queries.membershipOf(userId);
    const org = m ? await queries.org(m.org_id) : null;
    return m && org ? view(org, m.role) : null;
  }

  async function current(userId: string) {
    const org = await currentOrNull(userId);
    if (!org) throw new NotFoundError('You do not belong to an organisation.');
    return org;
  }

  /** A manager invites an address with a role; the token is shown once (only its hash is stored). */
  async function invite(byUserId: string, orgId: string, email: string, role: OrgRole) {
    await requireMember(orgId, byUserId);
    const invitee = await users.byEmail(email);
    if (invitee && (await queries.membershipOf(invitee.id))?.org_id === orgId) throw new ConflictError('This person is already a member of the organisation.');
    const token = randomBytes(32).toString('base64url');
    const inviteId = randomUUID();
    const now = clock();
    const expires = new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000);
    await onOrg(orgId, { type: 'invite_member', data: { invite_id: inviteId, email, role, token_hash: sha256(token), by: byUserId, expires_at: expires, now } });
    log.info({ org_id: orgId, invite_id: inviteId, role }, 'invitation created');
    return { invite_id: inviteId, email: email.trim(), role, expires_at: expires.toISOString(), token, url: inviteUrl(token) };
  }

  async function pendingInvites(byUserId: string, orgId: string) {
    const { role } = await requireMember(orgId, byUserId);
    if (role !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
    return (await queries.pendingInvites(orgId, clock())).map((i) => ({ invite_id: i.id, email: i.email, role: i.role, created_at: i.created_at, expires_at: i.expires_at }));
  }

  async function inviteOf(token: string) {
    const invite = await queries.inviteByTokenHash(sha256(token));
    if (!invite || (!invite.accepted_by && Date.parse(invite.expires_at) <= clock().getTime())) throw new NotFoundError('This invitation does not exist or has expired.');
    return invite;
  }

  /** What the invitation page shows before accepting. */
  async function previewInvite(token: string) {
    const invite = await inviteOf(token);
    const org = await queries.org(invite.org_id);
    if (!org) throw new NotFoundError('This invitation does not exist or has expired.');
    return { org_id: org.id, org_name: org.name, email: invite.email, role: invite.role, expires_at: invite.expires_at, accepted: invite.accepted_by !== null };
  }

  /** The invited user joins: their membership first (one organisation at most), then the organisation. */
  async function accept(userId: string, token: string) {
    const user = await users.byId(userId);
    if (!user) throw new NotFoundError('This user does not exist.');
    const invite = await inviteOf(token);
    if (invite.accepted_by === userId) return current(userId);
    const now = clock();
    const joined = await onMembership(userId, { type: 'join_org', data: { user_id: userId, org_id: invite.org_id, role: invite.role, now } });
    try {
      await onOrg(invite.org_id, { type: 'accept_invite', data: { invite_id: invite.id, user_id: userId, email: user.email, now } });
    } catch (e) {
      if (joined.newEvents.length > 0) await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: invite.org_id, now: clock() } });
      throw e;
    }
    log.info({ org_id: invite.org_id, user_id: userId }, 'invitation accepted');
    return current(userId);
  }

  async function members(byUserId: string, orgId: string) {
    await requireMember(orgId, byUserId);
    const rows = await queries.membersOf(orgId);
    const byId = new Map((await users.byIds(rows.map((r) => r.id))).map((u) => [u.id, u]));
    const list = rows.flatMap((r) => {
      const u = byId.get(r.id);
      return u && r.role ? [{ user_id: r.id, email: u.email, full_name: u.full_name, role: r.role, joined_at: r.joined_at ?? u.created_at }] : [];
    });
    // Managers first, then by when they joined.
    return list.sort((a, b) => (a.role === b.role ? 0 : a.role === 'manager' ? -1 : 1) || a.joined_at.localeCompare(b.joined_at) || a.email.localeCompare(b.email));
  }

  /** A manager removes a member, or a member leaves; their jobs stay with the organisation. */
  async function removeMember(byUserId: string | 'system', orgId: string, userId: string) {
    if (byUserId !== 'system') await requireMember(orgId, byUserId);
    const now = clock();
    await onOrg(orgId, { type: 'remove_member', data: { user_id: userId, by: byUserId, system: byUserId === 'system', now } });
    await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: orgId, now } });
    log.info({ org_id: orgId, user_id: userId, by: byUserId }, 'member removed');
  }

  /** A deleted account leaves its organisation. */
  async function userDeleted(userId: string) {
    const m = await queries.membershipOf(userId);
    if (m) await removeMember('system', m.org_id, userId);
  }

  /** The organisation's settings (issue 30): every member may read them, so workers know who sees their faces. */
  async function settings(byUserId: string, orgId: string): Promise<OrgSettings> {
    const { org } = await requireMember(orgId, byUserId);
    return settingsOf(org);
  }

  /** A manager changes settings; the answer is the settings after the change. */
  async function changeSettings(byUserId: string, orgId: string, patch: Partial<OrgSettings>): Promise<OrgSettings> {
    await requireMember(orgId, byUserId);
    const result = await onOrg(orgId, { type: 'change_org_settings', data: { by: byUserId, settings: patch, now: clock() } });
    if (result.newEvents.length > 0) log.info({ org_id: orgId, by: byUserId, changed: Object.keys(patch) }, 'organisation settings changed');
    const org = await queries.org(orgId);
    if (!org) throw new NotFoundError('This organisation does not exist.');
    return settingsOf(org);
  }

  async function listOrgs() {
    return (await queries.allOrgs()).map((o) => ({ id: o.id, name: o.name, member_count: o.member_count }));
  }

  return { createOrg, current, currentOrNull, invite, pendingInvites, previewInvite, accept, members, removeMember, userDeleted, listOrgs, settings, changeSettings, queries };
}

export type Orgs = ReturnType<typeof createOrgs>;
