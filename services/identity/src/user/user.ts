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
    /**
     * Set when the user came from single sign-on (issue 30): the company account (issuer + subject)
     * they sign in with. Such a user has no password (`password_hash` is empty).
     */
    sso?: { issuer: string; subject: string };
    /** The issuer vouched for the address (single sign-on): no confirmation mail is needed. */
    email_verified?: boolean;
  };
};
/** An existing user signed in with a company account for the first time: it is linked to them from now on. */
export type UserSsoLinked = { type: 'user_sso_linked'; data: { user_id: string; issuer: string; subject: string; at: string } };
export type UserLoggedIn = { type: 'user_logged_in'; data: { user_id: string; at: string } };
export type UserPromoted = { type: 'user_promoted'; data: { user_id: string } };
export type UserDeleted = { type: 'user_deleted'; data: { user_id: string; deleted_by: string; at: string } };

/**
 * Account recovery and address checks (issue 29). The token travels in the event to the
 * notification service, which mails it; identity checks a token by its SHA-256 hash. A reset link is
 * valid until `expires_at` (1 hour), once, and only the latest one requested.
 */
export type PasswordResetRequested = {
  type: 'password_reset_requested';
  data: { user_id: string; email: string; token: string; token_hash: string; expires_at: string; language: string; at: string; origin?: string };
};
/** A new password: every session and every earlier reset link of the user ends. */
export type PasswordResetCompleted = { type: 'password_reset_completed'; data: { user_id: string; password_hash: string; at: string } };
export type EmailVerificationRequested = {
  type: 'email_verification_requested';
  data: { user_id: string; email: string; token: string; token_hash: string; language: string; at: string; origin?: string };
};
/**
 * A password set before the address was ever confirmed, removed when its owner proved the address
 * another way (single sign-on whose provider vouches for it): whoever registered the address first
 * cannot keep a way into the account its owner now uses (account pre-hijacking). Sessions end too.
 */
export type UnconfirmedPasswordRemoved = { type: 'unconfirmed_password_removed'; data: { user_id: string; at: string } };
/** `by`: the admin who marked it confirmed, when it was not the owner's link (`sso`: the identity provider vouched). */
export type EmailVerified = { type: 'email_verified'; data: { user_id: string; at: string; by?: string } };

export type UserEvent =
  | UserRegistered
  | UserLoggedIn
  | UserPromoted
  | UserDeleted
  | PasswordResetRequested
  | PasswordResetCompleted
  | EmailVerificationRequested
  | EmailVerified
  | UnconfirmedPasswordRemoved
  | UserSsoLinked;

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
      email_verified: boolean;
      /** Goes up with every password reset; access tokens carry it and older ones stop working. */
      session_version: number;
      reset_token_hash: string | null;
      reset_expires_at: string | null;
      verify_token_hash: string | null;
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
        email_verified: event.data.email_verified === true,
        session_version: 0,
        reset_token_hash: null,
        reset_expires_at: null,
        verify_token_hash: null,
      };
    case 'user_logged_in':
      return state.status === 'none' ? state : { ...state, last_login_at: event.data.at };
    case 'user_promoted':
      return state.status === 'none' ? state : { ...state, is_admin: true };
    case 'user_deleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    case 'password_reset_requested':
      return state.status === 'none' ? state : { ...state, reset_token_hash: event.data.token_hash, reset_expires_at: event.data.expires_at };
    case 'password_reset_completed':
      return state.status === 'none'
        ? state
        : { ...state, password_hash: event.data.password_hash, session_version: state.session_version + 1, reset_token_hash: null, reset_expires_at: null };
    case 'unconfirmed_password_removed':
      return state.status === 'none'
        ? state
        : { ...state, password_hash: '', session_version: state.session_version + 1, reset_token_hash: null, reset_expires_at: null };
    case 'email_verification_requested':
      return state.status === 'none' ? state : { ...state, verify_token_hash: event.data.token_hash };
    case 'email_verified':
      return state.status === 'none' ? state : { ...state, email_verified: true, verify_token_hash: null };
    case 'user_sso_linked':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const userStream = (userId: string): string => `user-${userId}`;
