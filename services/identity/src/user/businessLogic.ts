import { ForbiddenError, IllegalStateError, NotFoundError, type Decider } from '@baret/platform';
import { evolveUser, initialUserState, type UserEvent, type UserState } from './user.js';

export type RegisterUser = {
  type: 'register_user';
  data: { user_id: string; email: string; full_name: string | null; password_hash: string; is_admin: boolean; now: Date; language?: string };
};
export type RecordLogin = { type: 'record_login'; data: { now: Date } };
export type PromoteUser = { type: 'promote_user'; data: Record<string, never> };
export type DeleteUser = { type: 'delete_user'; data: { deleted_by: string; now: Date } };

export type UserCommand = RegisterUser | RecordLogin | PromoteUser | DeleteUser;

type ExistingUser = Exclude<UserState, { status: 'none' }>;

function requireActive(state: UserState): asserts state is ExistingUser {
  if (state.status !== 'active') throw new NotFoundError('This user does not exist.');
}

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'register_user': {
      if (state.status !== 'none') throw new IllegalStateError('This user is already registered.');
      const { now, ...data } = command.data;
      return [{ type: 'user_registered', data: { ...data, registered_at: now.toISOString() } }];
    }
    case 'record_login':
      requireActive(state);
      return [{ type: 'user_logged_in', data: { user_id: state.id, at: command.data.now.toISOString() } }];
    case 'promote_user':
      requireActive(state);
      return state.is_admin ? [] : [{ type: 'user_promoted', data: { user_id: state.id } }];
    case 'delete_user':
      requireActive(state);
      if (command.data.deleted_by === state.id) throw new ForbiddenError('You cannot delete your own account.');
      return [
        { type: 'user_deleted', data: { user_id: state.id, deleted_by: command.data.deleted_by, at: command.data.now.toISOString() } },
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: initialUserState,
  evolve: evolveUser,
  decide: decideUser,
};
