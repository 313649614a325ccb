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
  type AuditRecorder,
  settingChanged,
  type AuditSource,
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
import { ORG_SETTING_KEYS, orgStream } from './org/org.js';
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
  /** Records role changes in the audit log (issue 30). */
  audit?: AuditRecorder;
  /**
   * The read models a command updates at once (default `orgProjections`). The identity service
   * passes them wrapped so each applied event is announced to the gateways that cache principals:
   * a role change then holds on the member's next request, not when the background pass catches up.
   */
  projections?: Projection[];
}

export const orgProjections: Projection[] = [orgsProjection, membershipsProjection];

export function createOrgs(opts: OrgsOptions) {
  const { eventStore, documents, users, log, clock } = opts;
  const projections = opts.projections ?? orgProjections;
  const queries = orgQueries(documents);

  // A command and its projection run as one per stream, so concurrent commands (invitations sent
  // at once) reach the read models in the order they were stored.
  const locks = new KeyedMutex();
  const onOrg = (orgId: string, command: OrgCommand) =>
    locks.run(orgStream(orgId), async () => {
      const result = await handleCommand(eventStore, orgStream(orgId), orgDecider, command);
      await projectInline(projections, result.recorded, documents, eventStore);
      return result;
    });
  const onMembership = (userId: string, command: MembershipCommand) =>
    locks.run(membershipStream(userId), async () => {
      const result = await handleCommand(eventStore, membershipStream(userId), membershipDecider, command);
      await projectInline(projections, result.recorded, documents, eventStore);
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

  /**
   * A manager invites an address with a role; the token is shown once (the organisation's decisions
   * keep only its hash) and mailed to the address by the notification service.
   */
  async function invite(byUserId: string, orgId: string, email: string, role: OrgRole, origin?: string) {
    await requireMember(orgId, byUserId);
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

  /**
   * What a manager (or the member themselves, or the system) does to a member: the caller must be in
   * the organisation (else it does not exist for them: 404); the organisation's stream decides who
   * may (managers; the last manager stays), then the member's membership stream, which the
   * principal reads, follows. Returns the organisation's result (its recorded events).
   */
  async function onMember(byUserId: string | 'system', orgId: string, userId: string, commands: (now: Date) => { org: OrgCommand; membership: MembershipCommand }) {
    if (byUserId !== 'system') await requireMember(orgId, byUserId);
    const { org, membership } = commands(clock());
    const result = await onOrg(orgId, org);
    await onMembership(userId, membership);
    return result;
  }

  /** A manager removes a member, or a member leaves; their jobs stay with the organisation. */
  async function removeMember(byUserId: string | 'system', orgId: string, userId: string) {
    await onMember(byUserId, orgId, userId, (now) => ({
      org: { type: 'remove_member', data: { user_id: userId, by: byUserId, system: byUserId === 'system', now } },
      membership: { type: 'leave_org', data: { user_id: userId, org_id: orgId, now } },
    }));
    log.info({ org_id: orgId, user_id: userId, by: byUserId }, 'member removed');
  }

  /**
   * A manager gives a member another role (issue 30): decided on the organisation's stream (only
   * managers; the last manager cannot demote themselves), then on the member's membership stream,
   * which the principal reads. Recorded in the audit log once, keyed by the event.
   */
  /** An organisation setting that changed, in the audit log once (keyed by its event and the setting; ADR 0023). */
  async function auditSetting(byUserId: string, orgId: string, name: string, value: boolean | string, eventId: string, from: AuditSource) {
    await opts.audit?.record(settingChanged({ by: byUserId, name, scope: 'org', value: String(value), orgId, from, key: eventId }));
  }

  async function changeRole(byUserId: string, orgId: string, userId: string, role: OrgRole, from: AuditSource = {}) {
    const result = await onMember(byUserId, orgId, userId, (now) => ({
      org: { type: 'change_member_role', data: { user_id: userId, role, by: byUserId, now } },
      membership: { type: 'change_role', data: { user_id: userId, org_id: orgId, role, now } },
    }));
    const changed = result.recorded.find((e) => e.type === 'org_member_role_changed');
    if (changed) {
      const data = changed.data as { previous_role: string };
      await opts.audit?.record({
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
      log.info({ org_id: orgId, user_id: userId, by: byUserId, role }, 'member role changed');
    }
    const member = (await members(byUserId, orgId)).find((m) => m.user_id === userId);
    if (!member) throw new NotFoundError('This person is not a member of the organisation.');
    return member;
  }

  /** A deleted account leaves its organisation. */
  async function userDeleted(userId: string) {
    const m = await queries.membershipOf(userId);
    if (m) await removeMember('system', m.org_id, userId);
  }

  /**
   * Single sign-on (issue 30): a user created by their first sign-in joins the organisation their
   * address's domain is configured for, as a member. Membership first, as for an invitation. False
   * when they could not join (already in another organisation, or the organisation is gone).
   */
  async function joinBySso(userId: string, orgId: string): Promise<boolean> {
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

  /** Whether a user may log in with a password: not when their organisation turned it off. */
  async function passwordLoginAllowed(userId: string): Promise<boolean> {
    const m = await queries.membershipOf(userId);
    if (!m) return true;
    return (await queries.org(m.org_id))?.password_login ?? true;
  }

  /** How the organisation's members sign in: what its members see, what its managers (and admins) change. */
  async function signInSettings(byUserId: string, isAdmin: boolean, orgId: string) {
    const org = isAdmin ? await queries.org(orgId) : (await requireMember(orgId, byUserId)).org;
    if (!org) throw new NotFoundError('This organisation does not exist.');
    return { password_login: org.password_login ?? true };
  }

  async function setPasswordLogin(byUserId: string, isAdmin: boolean, orgId: string, enabled: boolean, from: AuditSource = {}) {
    if (!isAdmin) await requireMember(orgId, byUserId);
    const result = await onOrg(orgId, { type: 'set_password_login', data: { enabled, by: byUserId, admin: isAdmin, now: clock() } });
    const changed = result.recorded.find((e) => e.type === 'org_password_login_changed');
    if (changed) await auditSetting(byUserId, orgId, 'password_login', enabled, changed.id, from);
    log.info({ org_id: orgId, by: byUserId, enabled }, 'organisation password login changed');
    return signInSettings(byUserId, isAdmin, orgId);
  }

  /** The organisation's settings (issue 30): every member may read them, so workers know who sees their faces. */
  async function settings(byUserId: string, orgId: string): Promise<OrgSettings> {
    const { org } = await requireMember(orgId, byUserId);
    return settingsOf(org);
  }

  /** A manager changes settings; the answer is the settings after the change. */
  async function changeSettings(byUserId: string, orgId: string, patch: Partial<OrgSettings>, from: AuditSource = {}): Promise<OrgSettings> {
    await requireMember(orgId, byUserId);
    const result = await onOrg(orgId, { type: 'change_org_settings', data: { by: byUserId, settings: patch, now: clock() } });
    for (const e of result.recorded.filter((x) => x.type === 'org_settings_changed')) {
      const data = e.data as Partial<OrgSettings>;
      for (const key of ORG_SETTING_KEYS) if (typeof data[key] === 'boolean') await auditSetting(byUserId, orgId, key, data[key], e.id, from);
      if (typeof data.time_zone === 'string') await auditSetting(byUserId, orgId, 'time_zone', data.time_zone, e.id, from);
    }
    if (result.newEvents.length > 0) log.info({ org_id: orgId, by: byUserId, changed: Object.keys(patch) }, 'organisation settings changed');
    const org = await queries.org(orgId);
    if (!org) throw new NotFoundError('This organisation does not exist.');
    return settingsOf(org);
  }

  async function listOrgs() {
    return (await queries.allOrgs()).map((o) => ({ id: o.id, name: o.name, member_count: o.member_count }));
  }

  return {
    createOrg,
    current,
    currentOrNull,
    invite,
    pendingInvites,
    previewInvite,
    accept,
    members,
    removeMember,
    changeRole,
    userDeleted,
    listOrgs,
    joinBySso,
    passwordLoginAllowed,
    signInSettings,
    setPasswordLogin,
    settings,
    changeSettings,
    queries,
  };
}

export type Orgs = ReturnType<typeof createOrgs>;
