/**
 * The Membership aggregate of one user: the organisation they belong to, if any. It is the
 * guard of "a user belongs to at most one organisation": joining is decided on this one stream,
 * so two invitations accepted at the same moment cannot both succeed.
 */
import type { OrgRole } from '@baret/platform';

export type MembershipStarted = { type: 'membership_started'; data: { user_id: string; org_id: string; role: OrgRole; at: string } };
export type MembershipEnded = { type: 'membership_ended'; data: { user_id: string; org_id: string; at: string } };
export type MembershipRoleChanged = { type: 'membership_role_changed'; data: { user_id: string; org_id: string; role: OrgRole; at: string } };
export type MembershipEvent = MembershipStarted | MembershipEnded | MembershipRoleChanged;

export interface MembershipState {
  org_id: string | null;
  role: OrgRole | null;
}

export const initialMembershipState = (): MembershipState => ({ org_id: null, role: null });

export function evolveMembership(state: MembershipState, event: MembershipEvent): MembershipState {
  switch (event.type) {
    case 'membership_started':
      return { org_id: event.data.org_id, role: event.data.role };
    case 'membership_ended':
      return state.org_id === event.data.org_id ? { org_id: null, role: null } : state;
    case 'membership_role_changed':
      return state.org_id === event.data.org_id ? { org_id: state.org_id, role: event.data.role } : state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const membershipStream = (userId: string): string => `membership-${userId}`;
