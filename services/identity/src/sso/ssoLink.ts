import { claimDecider, claimStream, type Claimed, type ClaimCommand, type Released } from '../claim/claim.js';

/**
 * One stream per identity at an issuer (issuer + subject): the link between a company account and
 * the Baret user it signs in as. Deciding the link on its own stream makes "the first sign-in
 * creates the user" atomic: two first sign-ins at once cannot both create one (the generic claim
 * of claim/claim.ts).
 */
type LinkDetails = { issuer: string; subject: string; at: string };
export type SsoIdentityLinked = Claimed<'sso_identity_linked', LinkDetails>;
export type SsoIdentityUnlinked = Released<'sso_identity_unlinked'>;
export type SsoLinkEvent = SsoIdentityLinked | SsoIdentityUnlinked;
export type SsoLinkCommand = ClaimCommand<LinkDetails>;

export const ssoLinkStream = (issuer: string, subject: string): string => claimStream('ssolink', `${issuer}\n${subject}`);

export const ssoLinkDecider = claimDecider<'sso_identity_linked', 'sso_identity_unlinked', LinkDetails>({
  claimed: 'sso_identity_linked',
  released: 'sso_identity_unlinked',
  conflict: 'This company account already signs in as another user.',
});

/** Links the company account to `user_id` (taking it over from `abandoned_owner`). */
export const linkSsoIdentity = (user_id: string, link: { issuer: string; subject: string }, abandoned_owner: string | null, now: Date): SsoLinkCommand => ({
  type: 'claim',
  data: { user_id, abandoned_owner, details: { issuer: link.issuer, subject: link.subject, at: now.toISOString() } },
});
