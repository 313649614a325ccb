import { claimDecider, claimStream, type Claimed, type ClaimCommand, type Released } from '../claim/claim.js';

/**
 * One stream per normalised email address makes uniqueness atomic in the event store itself:
 * two registrations racing for one address cannot both claim it (the generic claim of claim/claim.ts).
 */
export type EmailClaimed = Claimed<'email_claimed', Record<never, never>>;
export type EmailReleased = Released<'email_released'>;
export type EmailEvent = EmailClaimed | EmailReleased;
export type EmailCommand = ClaimCommand<Record<never, never>>;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();
export const emailStream = (email: string): string => claimStream('email', normaliseEmail(email));

export const emailDecider = claimDecider<'email_claimed', 'email_released'>({
  claimed: 'email_claimed',
  released: 'email_released',
  conflict: 'An account with this email address already exists.',
});

/** Claims `email` for `user_id` (taking it over from `abandoned_owner`). */
export const claimEmail = (user_id: string, abandoned_owner: string | null): EmailCommand => ({ type: 'claim', data: { user_id, abandoned_owner, details: {} } });
