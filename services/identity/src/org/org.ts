/** The Organisation aggregate: its name, its members with their roles, and its invitations. */
import { DEFAULT_EVIDENCE_PRIVACY, DEFAULT_ORG_TIME_ZONE, type EvidencePrivacy, type OrgRole } from '@baret/platform';

export type { OrgRole };
export const ORG_ROLES = ['manager', 'member'] as const;

export type OrgCreated = { type: 'org_created'; data: { org_id: string; name: string; created_by: string; at: string } };
export type OrgMemberAdded = {
  type: 'org_member_added';
  data: { org_id: string; user_id: string; role: OrgRole; invite_id: string | null; at: string };
};
export type OrgMemberRemoved = { type: 'org_member_removed'; data: { org_id: string; user_id: string; removed_by: string; at: string } };
/** The token itself is never stored: only its SHA-256, so a leaked event store cannot accept invites. */
export type OrgInviteCreated = {
  type: 'org_invite_created';
  data: { org_id: string; invite_id: string; email: string; role: OrgRole; token_hash: string; invited_by: string; expires_at: string; at: string };
};

/** A manager (or an admin) allowed or forbade password login for the members (issue 30: single sign-on only). */
export type OrgPasswordLoginChanged = { type: 'org_password_login_changed'; data: { org_id: string; enabled: boolean; by: string; at: string } };

/** A manager changed a member's role (issue 30). */
export type OrgMemberRoleChanged = {
  type: 'org_member_role_changed';
  data: { org_id: string; user_id: string; role: OrgRole; previous_role: OrgRole; changed_by: string; at: string };
};

/**
 * The invitation is to be mailed (issue 28): the notification service mails the link to the
 * invited address. This event carries the token, as `password_reset_requested` does (docs/adr/0020):
 * the token is useless once accepted or after 14 days, and only the account registered with the
 * invited address can accept it. The decisions above (`org_invite_created`) keep only its hash.
 */
export type OrgInviteMailRequested = {
  type: 'org_invite_mail_requested';
  data: { org_id: string; org_name: string; invite_id: string; email: string; role: OrgRole; invited_by: string; token: string; expires_at: string; at: string; origin?: string };
};

/** A manager changed settings (issue 30): only the settings changed are in `data`. */
export type OrgSettingsChanged = {
  type: 'org_settings_changed';
  data: { org_id: string; changed_by: string; at: string } & Partial<OrgSettings>;
};

/** The organisation's settings: what its events set, the defaults for the rest. */
export interface OrgSettings extends EvidencePrivacy {
  /** The IANA zone its reports write dates and times in (issue 54); absent in events before it: the default. */
  time_zone: string;
}
export const DEFAULT_ORG_SETTINGS: Readonly<OrgSettings> = Object.freeze({ ...DEFAULT_EVIDENCE_PRIVACY, time_zone: DEFAULT_ORG_TIME_ZONE });
/** The settings that are switches. */
export const ORG_SETTING_KEYS = ['blur_third_party', 'managers_see_unblurred'] as const satisfies ReadonlyArray<keyof OrgSettings>;

/** The settings after an `org_settings_changed`: those it carries, the others as they were. */
export function changedSettings(settings: OrgSettings, data: Partial<OrgSettings>): OrgSettings {
  const next = { ...settings };
  for (const key of ORG_SETTING_KEYS) if (typeof data[key] === 'boolean') next[key] = data[key];
  if (typeof data.time_zone === 'string' && data.time_zone) next.time_zone = data.time_zone;
  return next;
}

export type OrgEvent = OrgCreated | OrgMemberAdded | OrgMemberRemoved | OrgInviteCreated | OrgPasswordLoginChanged | OrgMemberRoleChanged | OrgInviteMailRequested | OrgSettingsChanged;

export interface Invite {
  email: string;
  role: OrgRole;
  expires_at: string;
  accepted_by: string | null;
}

export type OrgState =
  | { status: 'none' }
  | { status: 'active'; id: string; name: string; members: Record<string, OrgRole>; invites: Record<string, Invite>; password_login: boolean; settings: OrgSettings };

export const initialOrgState = (): OrgState => ({ status: 'none' });

export function evolveOrg(state: OrgState, event: OrgEvent): OrgState {
  if (event.type === 'org_created') return { status: 'active', id: event.data.org_id, name: event.data.name, members: {}, invites: {}, password_login: true, settings: { ...DEFAULT_ORG_SETTINGS } };
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'org_member_added': {
      const { invite_id: inviteId, user_id: userId } = event.data;
      const invites = inviteId && state.invites[inviteId] ? { ...state.invites, [inviteId]: { ...state.invites[inviteId], accepted_by: userId } } : state.invites;
      return { ...state, members: { ...state.members, [userId]: event.data.role }, invites };
    }
    case 'org_member_removed': {
      const { [event.data.user_id]: _gone, ...members } = state.members;
      return { ...state, members };
    }
    case 'org_member_role_changed':
      return state.members[event.data.user_id] ? { ...state, members: { ...state.members, [event.data.user_id]: event.data.role } } : state;
    case 'org_invite_created':
      return {
        ...state,
        invites: { ...state.invites, [event.data.invite_id]: { email: event.data.email, role: event.data.role, expires_at: event.data.expires_at, accepted_by: null } },
      };
    case 'org_password_login_changed':
      return { ...state, password_login: event.data.enabled };
    case 'org_invite_mail_requested':
      return state;
    case 'org_settings_changed':
      return { ...state, settings: changedSettings(state.settings, event.data) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const orgStream = (orgId: string): string => `org-${orgId}`;
