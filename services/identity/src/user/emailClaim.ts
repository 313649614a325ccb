import { createHash } from 'node:crypto';
import { ConflictError, type Decider } from '@baret/platform';

/**
 * One stream per normalised email address makes uniqueness atomic in the event store itself:
 * two registrations racing for one address cannot both claim it.
 */
export type EmailClaimed = { type: 'email_claimed'; data: { user_id: string } };
export type EmailReleased = { type: 'email_released'; data: { user_id: string } };
export type EmailEvent = EmailClaimed | EmailReleased;
export type EmailState = { owner: string | null };

/** `abandoned_owner`: an owner the caller checked never came to exist (a crash mid-registration). */
export type ClaimEmail = { type: 'claim_email'; data: { user_id: string; abandoned_owner: string | null } };
export type ReleaseEmail = { type: 'release_email'; data: { user_id: string } };
export type EmailCommand = ClaimEmail | ReleaseEmail;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
export const emailStream = (email: string): string =>
  `email-${createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 40)}`;

export const emailDecider: Decider<EmailState, EmailCommand, EmailEvent> = {
  initialState: () => ({ owner: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'email_claimed':
        return { owner: event.data.user_id };
      case 'email_released':
        return state.owner === event.data.user_id ? { owner: null } : state;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'claim_email':
        if (state.owner !== null && state.owner !== command.data.abandoned_owner) {
          throw new ConflictError('An account with this email address already exists.');
        }
        return [{ type: 'email_claimed', data: { user_id: command.data.user_id } }];
      case 'release_email':
        return state.owner === command.data.user_id ? [{ type: 'email_released', data: { user_id: command.data.user_id } }] : [];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
