/** The User aggregate: events, state and evolve. */

export type UserRegistered = {
  type: 'user_registered';
  data: {
    user_id: string;
    email: string;
    full_name: string | null;
    is_admin: boolean;
    password_hash: string;
    registered_at: string;
    /** The language the user registered in ("tr" or "en"); older events lack it. */
    language?: string;
  };
};
export type UserLoggedIn = { type: 'user_logged_in'; data: { user_id: string; at: string } };
export type UserPromoted = { type: 'user_promoted'; data: { user_id: string } };
export type UserDeleted = { type: 'user_deleted'; data: { user_id: string; deleted_by: string; at: string } };

export type UserEvent = UserRegistered | UserLoggedIn | UserPromoted | UserDeleted;

export type UserState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted';
      id: string;
      email: string;
      full_name: string | null;
      is_admin: boolean;
      password_hash: string;
      created_at: string;
      last_login_at: string | null;
    };

export const initialUserState = (): UserState => ({ status: 'none' });

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'user_registered':
      return {
        status: 'active',
        id: event.data.user_id,
        email: event.data.email,
        full_name: event.data.full_name,
        is_admin: event.data.is_admin,
        password_hash: event.data.password_hash,
        created_at: event.data.registered_at,
        last_login_at: null,
      };
    case 'user_logged_in':
      return state.status === 'none' ? state : { ...state, last_login_at: event.data.at };
    case 'user_promoted':
      return state.status === 'none' ? state : { ...state, is_admin: true };
    case 'user_deleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const userStream = (userId: string): string => `user-${userId}`;
