/** The Organisation aggregate: its name, its members with their roles, and its invitations. */
import { DEFAULT_EVIDENCE_PRIVACY, type EvidencePrivacy, type OrgRole } from '@baret/platform';

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

/** A manager changed settings (issue 30): only the settings changed are in `data`. */
export type OrgSettingsChanged = {
  type: 'org_settings_changed';
  data: { org_id: string; changed_by: string; at: string } & Partial<EvidencePrivacy>;
};

/** The organisation's settings: what its events set, the defaults for the rest. */
export type OrgSettings = EvidencePrivacy;
export const DEFAULT_ORG_SETTINGS: Readonly<OrgSettings> = DEFAULT_EVIDENCE_PRIVACY;
export const ORG_SETTING_KEYS = ['blur_third_party', 'managers_see_unblurred'] as const satisfies ReadonlyArray<keyof OrgSettings>;

export type OrgEvent = OrgCreated | OrgMemberAdded | OrgMemberRemoved | OrgInviteCreated | OrgSettingsChanged;

export interface Invite {
  email: string;
  role: OrgRole;
  expires_at: string;
  accepted_by: string | null;
}

export type OrgState =
  | { status: 'none' }
  | { status: 'active'; id: string; name: string; members: Record<string, OrgRole>; invites: Record<string, Invite>; settings: OrgSettings };

export const initialOrgState = (): OrgState => ({ status: 'none' });

export function evolveOrg(state: OrgState, event: OrgEvent): OrgState {
  if (event.type === 'org_created') return { status: 'active', id: event.data.org_id, name: event.data.name, members: {}, invites: {}, settings: { ...DEFAULT_ORG_SETTINGS } };
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
    case 'org_invite_created':
      return {
        ...state,
        invites: { ...state.invites, [event.data.invite_id]: { email: event.data.email, role: event.data.role, expires_at: event.data.expires_at, accepted_by: null } },
      };
    case 'org_settings_changed': {
      const settings = { ...state.settings };
      for (const key of ORG_SETTING_KEYS) if (typeof event.data[key] === 'boolean') settings[key] = event.data[key];
      return { ...state, settings };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const orgStream = (orgId: string): string => `org-${orgId}`;
