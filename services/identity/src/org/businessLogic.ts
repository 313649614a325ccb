import { canonicalTimeZone, ForbiddenError, IllegalStateError, NotFoundError, ValidationError, type Decider } from '@baret/platform';
import { normaliseEmail } from '../user/emailClaim.js';
import { evolveOrg, initialOrgState, ORG_SETTING_KEYS, type OrgEvent, type OrgRole, type OrgSettings, type OrgState } from './org.js';

export const ORG_NAME_MAX = 120;

export type CreateOrg = { type: 'create_org'; data: { org_id: string; name: string; user_id: string; now: Date } };
export type InviteMember = {
  type: 'invite_member';
  data: { invite_id: string; email: string; role: OrgRole; token: string; token_hash: string; by: string; expires_at: Date; now: Date; origin?: string };
};
export type AcceptInvite = { type: 'accept_invite'; data: { invite_id: string; user_id: string; email: string; now: Date } };
/** `by` removes `user_id`: a manager removes anyone, a member only themselves (leaving); `system` for a deleted account. */
export type RemoveMember = { type: 'remove_member'; data: { user_id: string; by: string; system?: boolean; now: Date } };
/** Single sign-on (issue 30): a user whose company address is at the organisation's configured domain joins as a member. */
export type AddSsoMember = { type: 'add_sso_member'; data: { user_id: string; now: Date } };
/** A manager of the organisation, or an admin (`admin`), allows or forbids password login for its members. */
export type SetPasswordLogin = { type: 'set_password_login'; data: { enabled: boolean; by: string; admin: boolean; now: Date } };
/** A manager gives a member another role; the last manager cannot demote themselves (issue 30). */
export type ChangeMemberRole = { type: 'change_member_role'; data: { user_id: string; role: OrgRole; by: string; now: Date } };
/** A manager changes settings; settings given with their current value change nothing (no event). */
export type ChangeOrgSettings = { type: 'change_org_settings'; data: { by: string; settings: Partial<OrgSettings>; now: Date } };
export type OrgCommand = CreateOrg | InviteMember | AcceptInvite | RemoveMember | AddSsoMember | SetPasswordLogin | ChangeMemberRole | ChangeOrgSettings;

function active(state: OrgState): Extract<OrgState, { status: 'active' }> {
  if (state.status !== 'active') throw new NotFoundError('This organisation does not exist.');
  return state;
}

/** Only a member sees the organisation: anyone else is told it does not exist. */
function roleOf(state: Extract<OrgState, { status: 'active' }>, userId: string): OrgRole {
  const role = state.members[userId];
  if (!role) throw new NotFoundError('This organisation does not exist.');
  return role;
}

/** An IANA time zone name as Intl spells it ("europe/istanbul" → "Europe/Istanbul"); anything else is a 400 naming the field. */
export function timeZoneOf(name: string): string {
  const zone = canonicalTimeZone(name.trim());
  if (!zone) throw new ValidationError(`time_zone must be a time zone name such as Europe/Istanbul or UTC; "${name.slice(0, 64)}" is not one.`);
  return zone;
}

/** The settings asked for that differ from the organisation's (a time zone spelt as Intl spells it). */
function settingsChanged(current: OrgSettings, asked: Partial<OrgSettings>): Partial<OrgSettings> {
  const changed: Partial<OrgSettings> = {};
  for (const key of ORG_SETTING_KEYS) {
    const value = asked[key];
    if (typeof value === 'boolean' && value !== current[key]) changed[key] = value;
  }
  if (asked.time_zone !== undefined) {
    const zone = timeZoneOf(asked.time_zone);
    if (zone !== current.time_zone) changed.time_zone = zone;
  }
  return changed;
}

const managers = (state: Extract<OrgState, { status: 'active' }>) => Object.values(state.members).filter((r) => r === 'manager').length;

function decideCreateOrg(command: CreateOrg, state: OrgState): OrgEvent[] {
  if (state.status !== 'none') throw new IllegalStateError('This organisation already exists.');
  const name = command.data.name.trim();
  if (!name) throw new ValidationError('Please give the organisation a name.');
  const at = command.data.now.toISOString();
  const { org_id, user_id } = command.data;
  return [
    { type: 'org_created', data: { org_id, name: name.slice(0, ORG_NAME_MAX), created_by: user_id, at } },
    { type: 'org_member_added', data: { org_id, user_id, role: 'manager', invite_id: null, at } },
  ];
}

function decideInviteMember(command: InviteMember, state: OrgState): OrgEvent[] {
  const org = active(state);
  if (roleOf(org, command.data.by) !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  const d = command.data;
  return [
    {
      type: 'org_invite_created',
      data: {
        org_id: org.id,
        invite_id: d.invite_id,
        email: d.email.trim(),
        role: d.role,
        token_hash: d.token_hash,
        invited_by: d.by,
        expires_at: d.expires_at.toISOString(),
        at: d.now.toISOString(),
        ...(d.origin ? { origin: d.origin } : {}),
      },
    },
    {
      type: 'org_invite_mail_requested',
      data: {
        org_id: org.id,
        org_name: org.name,
        invite_id: d.invite_id,
        email: d.email.trim(),
        role: d.role,
        invited_by: d.by,
        token: d.token,
        expires_at: d.expires_at.toISOString(),
        at: d.now.toISOString(),
        ...(d.origin ? { origin: d.origin } : {}),
      },
    },
  ];
}

function decideAcceptInvite(command: AcceptInvite, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { invite_id, user_id, email, now } = command.data;
  const invite = org.invites[invite_id];
  if (!invite) throw new NotFoundError('This invitation does not exist or has expired.');
  if (invite.accepted_by === user_id && org.members[user_id]) return []; // the same acceptance twice
  if (invite.accepted_by) throw new IllegalStateError('This invitation has already been used.');
  if (Date.parse(invite.expires_at) <= now.getTime()) throw new NotFoundError('This invitation does not exist or has expired.');
  if (normaliseEmail(invite.email) !== normaliseEmail(email)) throw new ForbiddenError('This invitation was sent to another email address.');
  if (org.members[user_id]) throw new IllegalStateError('You already belong to an organisation.');
  return [{ type: 'org_member_added', data: { org_id: org.id, user_id, role: invite.role, invite_id, at: now.toISOString() } }];
}

function decideRemoveMember(command: RemoveMember, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { user_id, by, system, now } = command.data;
  if (!system) {
    const byRole = roleOf(org, by);
    if (by !== user_id && byRole !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  }
  const role = org.members[user_id];
  if (!role) throw new NotFoundError('This person is not a member of the organisation.');
  if (!system && role === 'manager' && managers(org) === 1 && Object.keys(org.members).length > 1) {
    throw new IllegalStateError('An organisation needs a manager: make another member a manager first.');
  }
  return [{ type: 'org_member_removed', data: { org_id: org.id, user_id, removed_by: by, at: now.toISOString() } }];
}

function decideAddSsoMember(command: AddSsoMember, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { user_id, now } = command.data;
  if (org.members[user_id]) return [];
  return [{ type: 'org_member_added', data: { org_id: org.id, user_id, role: 'member', invite_id: null, at: now.toISOString() } }];
}

function decideSetPasswordLogin(command: SetPasswordLogin, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { enabled, by, admin, now } = command.data;
  if (!admin && roleOf(org, by) !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  if (org.password_login === enabled) return [];
  return [{ type: 'org_password_login_changed', data: { org_id: org.id, enabled, by, at: now.toISOString() } }];
}

function decideChangeMemberRole(command: ChangeMemberRole, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { user_id, role, by, now } = command.data;
  if (roleOf(org, by) !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  const previous = org.members[user_id];
  if (!previous) throw new NotFoundError('This person is not a member of the organisation.');
  if (previous === role) return [];
  if (previous === 'manager' && managers(org) === 1) throw new IllegalStateError('An organisation needs a manager: make another member a manager first.');
  return [{ type: 'org_member_role_changed', data: { org_id: org.id, user_id, role, previous_role: previous, changed_by: by, at: now.toISOString() } }];
}

function decideChangeOrgSettings(command: ChangeOrgSettings, state: OrgState): OrgEvent[] {
  const org = active(state);
  const { by, settings, now } = command.data;
  if (roleOf(org, by) !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
  const changed = settingsChanged(org.settings, settings);
  if (Object.keys(changed).length === 0) return [];
  return [{ type: 'org_settings_changed', data: { org_id: org.id, changed_by: by, at: now.toISOString(), ...changed } }];
}

export function decideOrg(command: OrgCommand, state: OrgState): OrgEvent[] {
  switch (command.type) {
    case 'create_org':
      return decideCreateOrg(command, state);
    case 'invite_member':
      return decideInviteMember(command, state);
    case 'accept_invite':
      return decideAcceptInvite(command, state);
    case 'remove_member':
      return decideRemoveMember(command, state);
    case 'add_sso_member':
      return decideAddSsoMember(command, state);
    case 'set_password_login':
      return decideSetPasswordLogin(command, state);
    case 'change_member_role':
      return decideChangeMemberRole(command, state);
    case 'change_org_settings':
      return decideChangeOrgSettings(command, state);
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const orgDecider: Decider<OrgState, OrgCommand, OrgEvent> = { initialState: initialOrgState, evolve: evolveOrg, decide: decideOrg };
