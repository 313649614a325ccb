import { createHash } from 'node:crypto';
import { ConflictError, type Decider } from '@baret/platform';

/**
 * A key only one user may hold at a time (an email address; a company account at an issuer). One
 * stream per key makes the claim atomic in the event store itself: two claims racing for one key
 * cannot both win. The holder gives the key back when it is deleted (or when what it claimed the
 * key for failed), and a holder the caller checked never came to exist (a crash half-way) may be
 * taken over. Each kind of key keeps its own stream prefix and event types (the stored events).
 */
export type ClaimState = { owner: string | null };
/** `details`: what the claimed event records besides its user (none for an email address). */
export type Claimed<T extends string, D extends object> = { type: T; data: { user_id: string } & D };
export type Released<T extends string> = { type: T; data: { user_id: string } };
/** `abandoned_owner`: an owner the caller checked never came to exist, or was deleted. */
export type ClaimKey<D extends object> = { type: 'claim'; data: { user_id: string; abandoned_owner: string | null; details: D } };
export type ReleaseKey = { type: 'release'; data: { user_id: string } };
export type ClaimCommand<D extends object> = ClaimKey<D> | ReleaseKey;

export type ClaimKind<C extends string, R extends string> = {
  claimed: C;
  released: R;
  /** The refusal when another user holds the key. */
  conflict: string;
};

/** The stream of one key, `{prefix}-…`: the first 40 hex digits of its SHA-256 (the key itself may be personal). */
export const claimStream = (prefix: string, key: string): string => `${prefix}-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;

export function claimDecider<C extends string, R extends string, D extends object = Record<never, never>>(
  kind: ClaimKind<C, R>,
): Decider<ClaimState, ClaimCommand<D>, Claimed<C, D> | Released<R>> {
  return {
    initialState: () => ({ owner: null }),
    evolve: (state, event) => {
      if (event.type === kind.claimed) return { owner: event.data.user_id };
      if (event.type === kind.released) return state.owner === event.data.user_id ? { owner: null } : state;
      return state;
    },
    decide: (command, state) => {
      switch (command.type) {
        case 'claim': {
          const { user_id, abandoned_owner, details } = command.data;
          if (state.owner === user_id) return [];
          if (state.owner !== null && state.owner !== abandoned_owner) throw new ConflictError(kind.conflict);
          const claimed = { type: kind.claimed, data: { user_id, ...details } } as Claimed<C, D>;
          return [claimed];
        }
        case 'release': {
          const { user_id } = command.data;
          return state.owner === user_id ? [{ type: kind.released, data: { user_id } }] : [];
        }
        default: {
          const never: never = command;
          return never;
        }
      }
    },
  };
}
