import type { User } from '@/types/api';

/** The auth session state machine (spec section 4), kept pure so it can be tested alone. */
export type AuthState =
  | { status: 'loading'; user: null }
  | { status: 'anonymous'; user: null; loggedOut?: boolean }
  | { status: 'authenticated'; user: User };

export type AuthEvent =
  | { type: 'TokenMissing' }
  | { type: 'UserLoaded'; user: User }
  | { type: 'UserLoadFailed' }
  /** The user chose to log out (as opposed to a session that could not be restored). */
  | { type: 'LoggedOut' };

export const initialAuthState = (hasToken: boolean): AuthState =>
  hasToken ? { status: 'loading', user: null } : { status: 'anonymous', user: null };

export function evolveAuth(_state: AuthState, event: AuthEvent): AuthState {
  switch (event.type) {
    case 'UserLoaded':
      return { status: 'authenticated', user: event.user };
    case 'TokenMissing':
    case 'UserLoadFailed':
      return { status: 'anonymous', user: null };
    case 'LoggedOut':
      return { status: 'anonymous', user: null, loggedOut: true };
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}
