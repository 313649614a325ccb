import { createHash } from 'node:crypto';
import { ConflictError, type Decider } from '@baret/platform';

/**
 * One stream per identity at an issuer (issuer + subject): the link between a company account and
 * the Baret user it signs in as. Deciding the link on its own stream makes "the first sign-in
 * creates the user" atomic: two first sign-ins at once cannot both create one.
 */
export type SsoIdentityLinked = { type: 'sso_identity_linked'; data: { user_id: string; issuer: string; subject: string; at: string } };
export type SsoIdentityUnlinked = { type: 'sso_identity_unlinked'; data: { user_id: string } };
export type SsoLinkEvent = SsoIdentityLinked | SsoIdentityUnlinked;
export type SsoLinkState = { owner: string | null };

/** `abandoned_owner`: an owner the caller checked never came to exist (a crash mid-creation), or was deleted. */
export type LinkSsoIdentity = { type: 'link_sso_identity'; data: { user_id: string; issuer: string; subject: string; abandoned_owner: string | null; now: Date } };
export type UnlinkSsoIdentity = { type: 'unlink_sso_identity'; data: { user_id: string } };
export type SsoLinkCommand = LinkSsoIdentity | UnlinkSsoIdentity;

export const ssoLinkStream = (issuer: string, subject: string): string =>
  `ssolink-${createHash('sha256').update(`${issuer}\n${subject}`).digest('hex').slice(0, 40)}`;

export const ssoLinkDecider: Decider<SsoLinkState, SsoLinkCommand, SsoLinkEvent> = {
  initialState: () => ({ owner: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'sso_identity_linked':
        return { owner: event.data.user_id };
      case 'sso_identity_unlinked':
        return state.owner === event.data.user_id ? { owner: null } : state;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'link_sso_identity': {
        const { user_id, issuer, subject, now } = command.data;
        if (state.owner === user_id) return [];
        if (state.owner !== null && state.owner !== command.data.abandoned_owner) throw new ConflictError('This company account already signs in as another user.');
        return [{ type: 'sso_identity_linked', data: { user_id, issuer, subject, at: now.toISOString() } }];
      }
      case 'unlink_sso_identity':
        return state.owner === command.data.user_id ? [{ type: 'sso_identity_unlinked', data: { user_id: command.data.user_id } }] : [];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
