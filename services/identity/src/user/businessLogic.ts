import { DomainError, ForbiddenError, IllegalStateError, NotFoundError, type Decider } from '@baret/platform';
import { evolveUser, initialUserState, type UserEvent, type UserState } from './user.js';

export type RegisterUser = {
  type: 'register_user';
  data: {
    user_id: string;
    email: string;
    full_name: string | null;
    password_hash: string;
    is_admin: boolean;
    now: Date;
    language?: string;
    /** Single sign-on (issue 30): the company account the user comes from; then there is no password. */
    sso?: { issuer: string; subject: string };
    email_verified?: boolean;
  };
};
export type LinkSso = { type: 'link_sso'; data: { issuer: string; subject: string; now: Date } };
export type RecordLogin = { type: 'record_login'; data: { now: Date } };
export type PromoteUser = { type: 'promote_user'; data: Record<string, never> };
/** `erasure`: the user erases their own account (issue 30), the only way one deletes oneself. */
export type DeleteUser = { type: 'delete_user'; data: { deleted_by: string; now: Date; erasure?: boolean } };

export type RequestPasswordReset = { type: 'request_password_reset'; data: { token: string; token_hash: string; language: string; now: Date; origin?: string } };
export type CompletePasswordReset = { type: 'complete_password_reset'; data: { token_hash: string; password_hash: string; now: Date } };
export type RequestEmailVerification = { type: 'request_email_verification'; data: { token: string; token_hash: string; language: string; now: Date; origin?: string } };
export type VerifyEmail = { type: 'verify_email'; data: { token_hash: string; now: Date } };
/** An admin marks the address confirmed (issue 40: mail that reaches nobody without SMTP). */
export type MarkEmailVerified = { type: 'mark_email_verified'; data: { by: string; now: Date } };

export type UserCommand = RegisterUser | LinkSso | RecordLogin | PromoteUser | DeleteUser | RequestPasswordReset | CompletePasswordReset | RequestEmailVerification | VerifyEmail | MarkEmailVerified;

/** A reset link lives this long. */
export const RESET_LINK_TTL_MS = 3600_000;

/** A token link that is unknown, used, replaced by a newer one or expired: one answer for all. */
export class InvalidTokenError extends DomainError {
  readonly status = 400;
  readonly code = 'invalid_token';
  constructor() {
    super('This link is not valid or has expired. Please ask for a new one.');
  }
}

type ExistingUser = Exclude<UserState, { status: 'none' }>;

function requireActive(state: UserState): asserts state is ExistingUser {
  if (state.status !== 'active') throw new NotFoundError('This user does not exist.');
}

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'register_user': {
      if (state.status !== 'none') throw new IllegalStateError('This user is already registered.');
      const { now, sso, email_verified, ...data } = command.data;
      if (sso && data.password_hash) throw new IllegalStateError('A user from single sign-on has no password.');
      return [{ type: 'user_registered', data: { ...data, ...(sso ? { sso } : {}), ...(email_verified ? { email_verified } : {}), registered_at: now.toISOString() } }];
    }
    case 'link_sso': {
      requireActive(state);
      const { issuer, subject, now } = command.data;
      const at = now.toISOString();
      const linked: UserEvent = { type: 'user_sso_linked', data: { user_id: state.id, issuer, subject, at } };
      // Linking needs the provider to vouch for the address (the caller checks). An address never
      // confirmed here is proven now; a password someone set before that proof stops opening it.
      if (state.email_verified) return [linked];
      return [
        linked,
        { type: 'email_verified', data: { user_id: state.id, at, by: 'sso' } },
        ...(state.password_hash ? [{ type: 'unconfirmed_password_removed' as const, data: { user_id: state.id, at } }] : []),
      ];
    }
    case 'record_login':
      requireActive(state);
      return [{ type: 'user_logged_in', data: { user_id: state.id, at: command.data.now.toISOString() } }];
    case 'promote_user':
      requireActive(state);
      return state.is_admin ? [] : [{ type: 'user_promoted', data: { user_id: state.id } }];
    case 'delete_user':
      requireActive(state);
      if (command.data.deleted_by === state.id && !command.data.erasure) throw new ForbiddenError('You cannot delete your own account.');
      return [
        { type: 'user_deleted', data: { user_id: state.id, deleted_by: command.data.deleted_by, at: command.data.now.toISOString() } },
      ];
    case 'request_password_reset': {
      requireActive(state);
      const { token, token_hash, language, now, origin } = command.data;
      const expires = new Date(now.getTime() + RESET_LINK_TTL_MS).toISOString();
      return [
        { type: 'password_reset_requested', data: { user_id: state.id, email: state.email, token, token_hash, expires_at: expires, language, at: now.toISOString(), ...(origin ? { origin } : {}) } },
      ];
    }
    case 'complete_password_reset': {
      const { token_hash, password_hash, now } = command.data;
      if (state.status !== 'active' || !state.reset_token_hash || state.reset_token_hash !== token_hash) throw new InvalidTokenError();
      if (!state.reset_expires_at || Date.parse(state.reset_expires_at) <= now.getTime()) throw new InvalidTokenError();
      return [{ type: 'password_reset_completed', data: { user_id: state.id, password_hash, at: now.toISOString() } }];
    }
    case 'request_email_verification': {
      requireActive(state);
      if (state.email_verified) return [];
      const { token, token_hash, language, now, origin } = command.data;
      return [{ type: 'email_verification_requested', data: { user_id: state.id, email: state.email, token, token_hash, language, at: now.toISOString(), ...(origin ? { origin } : {}) } }];
    }
    case 'mark_email_verified':
      requireActive(state);
      if (state.email_verified) return [];
      return [{ type: 'email_verified', data: { user_id: state.id, at: command.data.now.toISOString(), by: command.data.by } }];
    case 'verify_email': {
      if (state.status !== 'active') throw new InvalidTokenError();
      if (state.email_verified && !state.verify_token_hash) return [];
      if (state.verify_token_hash !== command.data.token_hash) throw new InvalidTokenError();
      return [{ type: 'email_verified', data: { user_id: state.id, at: command.data.now.toISOString() } }];
    }
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
