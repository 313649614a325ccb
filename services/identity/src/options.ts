import type { DocumentStore, EventStore, MessageBus, QuotaClient } from '@baret/platform';
import type { Logger } from 'pino';
import type { ThrottleRules } from './loginThrottle.js';
import type { ScryptParams } from './passwords.js';
import type { SignInFact, SsoOptions } from './sso/config.js';

export interface IdentityOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  quota: QuotaClient;
  /** Comma-separated addresses that are admins (BARET_ADMIN_EMAILS). */
  adminEmails: string;
  log: Logger;
  clock?: () => Date;
  scrypt?: ScryptParams;
  /** Login throttling rules (tests); see loginThrottle.ts. */
  loginThrottle?: Partial<ThrottleRules>;
  /** Signs device cookies (the JWT secret); also the key of the single sign-on flow cookie. */
  deviceSecret: string;
  /** Single sign-on with OpenID Connect (issue 30); absent: password login only. */
  sso?: SsoOptions;
  /**
   * Told of every single sign-on attempt once it is decided (signed in, or failed and why): the
   * hook for an audit log. It must not throw; the sign-in does not wait for more than it takes.
   */
  onSignIn?: (fact: SignInFact) => void | Promise<void>;
  /** Where the audit entries of every service arrive (issue 30); without it only this service's own are kept (tests). */
  bus?: MessageBus;
}
