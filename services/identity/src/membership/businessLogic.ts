import { IllegalStateError, type Decider, type OrgRole } from '@baret/platform';
import { evolveMembership, initialMembershipState, type MembershipEvent, type MembershipState } from './membership.js';

export type JoinOrg = { type: 'join_org'; data: { user_id: string; org_id: string; role: OrgRole; now: Date } };
export type LeaveOrg = { type: 'leave_org'; data: { user_id: string; org_id: string; now: Date } };
/** The organisation changed the member's role (decided there first: issue 30). */
export type ChangeRole = { type: 'change_role'; data: { user_id: string; org_id: string; role: OrgRole; now: Date } };
export type MembershipCommand = JoinOrg | LeaveOrg | ChangeRole;

export function decideMembership(command: MembershipCommand, state: MembershipState): MembershipEvent[] {
  switch (command.type) {
    case 'join_org': {
      const { user_id, org_id, role, now } = command.data;
      if (state.org_id === org_id) return [];
      if (state.org_id) throw new IllegalStateError('You already belong to an organisation.');
      return [{ type: 'membership_started', data: { user_id, org_id, role, at: now.toISOString() } }];
    }
    case 'leave_org': {
      const { user_id, org_id, now } = command.data;
      if (state.org_id !== org_id) return [];
      return [{ type: 'membership_ended', data: { user_id, org_id, at: now.toISOString() } }];
    }
    case 'change_role': {
      const { user_id, org_id, role, now } = command.data;
      if (state.org_id !== org_id || state.role === role) return [];
      return [{ type: 'membership_role_changed', data: { user_id, org_id, role, at: now.toISOString() } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const membershipDecider: Decider<MembershipState, MembershipCommand, MembershipEvent> = {
  initialState: initialMembershipState,
  evolve: evolveMembership,
  decide: decideMembership,
};
