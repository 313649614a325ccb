import { isNewer, type DocumentStore, type OrgRole, type Projection, type RecordedEvent } from '@baret/platform';
import type { MembershipEvent } from '../membership/membership.js';
import { changedSettings, DEFAULT_ORG_SETTINGS, type OrgEvent, type OrgSettings } from '../org/org.js';
import { normaliseEmail } from '../user/emailClaim.js';

/** One organisation: its name and how many members it has. */
export interface OrgDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  name: string;
  created_by: string;
  created_at: string;
  member_count: number;
  /** Whether members may log in with a password (issue 30); absent in documents projected before it: true. */
  password_login?: boolean;
  /** Absent on documents projected before issue 30: the defaults. */
  settings?: OrgSettings;
}

/** An organisation's settings as its read model has them (the defaults for what was never changed). */
export const settingsOf = (org: Pick<OrgDoc, 'settings'>): OrgSettings => ({ ...DEFAULT_ORG_SETTINGS, ...(org.settings ?? {}) });

/** The organisation a user belongs to now (one document per user who ever joined one). */
export interface MembershipDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  org_id: string | null;
  role: OrgRole | null;
  joined_at: string | null;
}

/** An invitation, found by the hash of its token. */
export interface InviteDoc extends Record<string, unknown> {
  id: string;
  org_id: string;
  email: string;
  email_lower: string;
  role: OrgRole;
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_by: string | null;
  accepted_at: string | null;
}

export const ORGS = 'identity_orgs';
export const MEMBERSHIPS = 'identity_memberships';
export const INVITES = 'identity_invites';

/** Organisations and their invitations, from the organisation streams. */
export const orgsProjection: Projection = {
  name: 'identity-orgs',
  categories: ['org'],
  async apply(recorded: RecordedEvent, documents: DocumentStore) {
    const orgs = documents.collection<OrgDoc>(ORGS);
    const invites = documents.collection<InviteDoc>(INVITES);
    const orgId = recorded.streamId.slice('org-'.length);
    const doc = await orgs.get(orgId);
    if (!isNewer(doc, recorded.revision)) return;
    // One event after the other: a later one projected first waits for the catch-up runner.
    if (recorded.revision !== (doc?.revision ?? -1) + 1) return;
    const event = { type: recorded.type, data: recorded.data } as OrgEvent;
    switch (event.type) {
      case 'org_created':
        await orgs.put(orgId, { id: orgId, revision: recorded.revision, name: event.data.name, created_by: event.data.created_by, created_at: event.data.at, member_count: 0 });
        return;
      case 'org_invite_created': {
        const d = event.data;
        await invites.put(d.invite_id, {
          id: d.invite_id,
          org_id: orgId,
          email: d.email,
          email_lower: normaliseEmail(d.email),
          role: d.role,
          token_hash: d.token_hash,
          invited_by: d.invited_by,
          created_at: d.at,
          expires_at: d.expires_at,
          accepted_by: null,
          accepted_at: null,
        });
        break;
      }
      case 'org_member_added': {
        const inviteId = event.data.invite_id;
        const invite = inviteId ? await invites.get(inviteId) : null;
        if (invite) await invites.put(invite.id, { ...invite, accepted_by: event.data.user_id, accepted_at: event.data.at });
        break;
      }
      case 'org_member_removed':
      case 'org_member_role_changed':
      case 'org_invite_mail_requested':
        break;
      case 'org_password_login_changed':
        if (doc) await orgs.put(orgId, { ...doc, revision: recorded.revision, password_login: event.data.enabled });
        return;
      case 'org_settings_changed': {
        if (!doc) return;
        await orgs.put(orgId, { ...doc, revision: recorded.revision, settings: changedSettings(settingsOf(doc), event.data) });
        return;
      }
      default: {
        const never: never = event;
        return never;
      }
    }
    if (!doc) return;
    const delta = event.type === 'org_member_added' ? 1 : event.type === 'org_member_removed' ? -1 : 0;
    await orgs.put(orgId, { ...doc, revision: recorded.revision, member_count: doc.member_count + delta });
  },
};

/** Who belongs where, from the membership streams. */
export const membershipsProjection: Projection = {
  name: 'identity-memberships',
  categories: ['membership'],
  async apply(recorded: RecordedEvent, documents: DocumentStore) {
    const memberships = documents.collection<MembershipDoc>(MEMBERSHIPS);
    const userId = recorded.streamId.slice('membership-'.length);
    const doc = await memberships.get(userId);
    if (!isNewer(doc, recorded.revision)) return;
    const event = { type: recorded.type, data: recorded.data } as MembershipEvent;
    const next: MembershipDoc =
      event.type === 'membership_started'
        ? { id: userId, revision: recorded.revision, org_id: event.data.org_id, role: event.data.role, joined_at: event.data.at }
        : event.type === 'membership_role_changed'
          ? doc?.org_id === event.data.org_id
            ? { ...doc, revision: recorded.revision, role: event.data.role }
            : { ...(doc ?? { id: userId, org_id: null, role: null, joined_at: null }), revision: recorded.revision }
          : doc?.org_id === event.data.org_id
          ? { id: userId, revision: recorded.revision, org_id: null, role: null, joined_at: null }
          : { ...(doc ?? { id: userId, org_id: null, role: null, joined_at: null }), revision: recorded.revision };
    await memberships.put(userId, next);
  },
};

export function orgQueries(documents: DocumentStore) {
  const orgs = documents.collection<OrgDoc>(ORGS);
  const memberships = documents.collection<MembershipDoc>(MEMBERSHIPS);
  const invites = documents.collection<InviteDoc>(INVITES);
  return {
    org: (id: string) => orgs.get(id),
    allOrgs: () => orgs.find({ orderBy: [{ field: 'created_at' }] }),
    membershipOf: async (userId: string): Promise<{ org_id: string; role: OrgRole } | null> => {
      const m = await memberships.get(userId);
      return m?.org_id && m.role ? { org_id: m.org_id, role: m.role } : null;
    },
    membersOf: (orgId: string) => memberships.find({ where: { org_id: orgId }, orderBy: [{ field: 'joined_at' }] }),
    inviteByTokenHash: async (hash: string) => (await invites.find({ where: { token_hash: hash }, limit: 1 }))[0] ?? null,
    pendingInvites: (orgId: string, now: Date) =>
      invites.find({ where: { org_id: orgId, accepted_by: null, expires_at: { $gt: now.toISOString() } }, orderBy: [{ field: 'created_at', direction: 'desc' }] }),
  };
}
export type OrgQueries = ReturnType<typeof orgQueries>;
