import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { identityInternalRoutes } from './internal.js';
import {
  API_KEY_PREFIX,
  aggregateStream,
  ConflictError,
  createAuditRecorder,
  settingChanged,
  csv,
  DomainError,
  handleCommand,
  NotFoundError,
  PrincipalChanges,
  projectInline,
  shredderOf,
  quotaAccountOf,
  UnauthorizedError,
  publicUrlOf,
  ValidationError,
  type AuthResolvers,
  type DocumentStore,
  type AuditSource,
  type EventStore,
  type MessageBus,
  type Principal,
  type Projection,
  type QuotaClient,
  type RecordedEvent,
  type ServiceModule,
  type UserDirectory,
} from '@baret/platform';
import MailChecker from 'mailchecker';
import type { Logger } from 'pino';
import { apiKeyDecider } from './apiKey/businessLogic.js';
import { apiKeyStream } from './apiKey/apiKey.js';
import { identityRoutes } from './api.js';
import { DEFAULT_SCRYPT, hashPassword, verifyPassword, type ScryptParams } from './passwords.js';
import { API_KEYS, apiKeyQueries, apiKeysProjection, type ApiKeyDoc } from './readModels/apiKeys.js';
import { USERS, userQueries, usersProjection, type UserDoc } from './readModels/users.js';
import { claimEmail, emailDecider, emailStream, normaliseEmail } from './user/emailClaim.js';
import { InvalidTokenError, userDecider } from './user/businessLogic.js';
import { userStream } from './user/user.js';
import { DEFAULT_THROTTLE, LoginThrottle, type LoginSource, type ThrottleRules } from './loginThrottle.js';
import { createOrgs, orgProjections } from './orgs.js';
import { orgRoutes } from './orgApi.js';
import { INVITES, MEMBERSHIPS } from './readModels/orgs.js';
import { createOidc, SSO_ERRORS, SsoError, type OidcSettings, type SsoClaims } from './sso/oidc.js';
import { linkSsoIdentity, ssoLinkDecider, ssoLinkStream } from './sso/ssoLink.js';
import { ssoRoutes } from './sso/api.js';
import { AUDIT, auditRoutes, createAuditLog } from './audit.js';

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

export interface SsoOptions extends OidcSettings {
  /** A first sign-in with an address at one of these domains joins that organisation as a member (OIDC_ORG_DOMAINS). */
  orgDomains: ReadonlyMap<string, string>;
}

/** A sign-in, decided: who (when known), how, and how it ended. */
export type SignInFact =
  | { outcome: 'signed_in'; method: 'sso'; user_id: string; email: string; issuer: string; created: boolean; org_id: string | null; ip: string; at: string }
  | { outcome: 'failed'; method: 'sso'; code: string; reason: string; email: string | null; ip: string; at: string };

/** The single sign-on settings of a configuration, or undefined when OIDC_ISSUER is not set. */
export function ssoOptionsFromConfig(config: {
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_REDIRECT_URL?: string;
  OIDC_ORG_DOMAINS: string;
  OIDC_SCOPES: string;
  PUBLIC_URL?: string;
  PORT: number;
}): SsoOptions | undefined {
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET) return undefined;
  const orgDomains = new Map(
    csv(config.OIDC_ORG_DOMAINS).map((pair) => {
      const [domain = '', orgId = ''] = pair.split('=').map((x) => x.trim());
      return [domain.toLowerCase(), orgId.toLowerCase()] as const;
    }),
  );
  return {
    issuer: config.OIDC_ISSUER,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    redirectUrl: config.OIDC_REDIRECT_URL ?? `${publicUrlOf(config)}/login/sso`,
    scopes: config.OIDC_SCOPES,
    orgDomains,
  };
}

/** Password login is off for the user's organisation (issue 30): they sign in with the company account. */
export class PasswordLoginDisabledError extends DomainError {
  readonly status = 403;
  readonly code = 'password_login_disabled';
  constructor() {
    super('Your organisation signs in with company accounts only. Please use “Sign in with your company account”.');
  }
}

/** Identity's settings an admin changes (issue 29). */
export interface IdentitySettings {
  /** Unverified accounts may log in, but may not start an analysis. */
  require_email_verification: boolean;
}
interface SettingsDoc extends IdentitySettings, Record<string, unknown> {
  id: string;
}
export const SETTINGS = 'identity_settings';

export { API_KEY_PREFIX };

/** An account without a password may be erased within this long of signing in (issue 30). */
export const RECENT_LOGIN_MS = 5 * 60_000;

/** Erasing an account needs the password (or a fresh sign-in): a wrong or missing one is refused. */
export class ReauthenticationError extends DomainError {
  readonly status = 403;
  readonly code = 'reauthentication_required';
}
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export interface PublicUser {
  id: string;
  email: string;
  full_name: string | null;
  is_admin: boolean;
  last_login_at: string | null;
  created_at: string;
  email_verified: boolean;
}

export const publicUser = (u: UserDoc): PublicUser => ({
  email_verified: u.email_verified ?? false,
  id: u.id,
  email: u.email,
  full_name: u.full_name,
  is_admin: u.is_admin,
  last_login_at: u.last_login_at,
  created_at: u.created_at,
});

export const publicKey = (k: ApiKeyDoc) => ({
  id: k.id,
  name: k.name,
  token_prefix: k.token_prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

/** The identity service: users, registration, login, API keys, admins. */
export function createIdentityService(opts: IdentityOptions) {
  const { eventStore, documents, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const scryptParams = opts.scrypt ?? DEFAULT_SCRYPT;
  const throttle = new LoginThrottle(documents, opts.deviceSecret, clock, { ...DEFAULT_THROTTLE, ...opts.loginThrottle });
  const adminEmails = new Set(csv(opts.adminEmails).map(normaliseEmail));
  const users = userQueries(documents);
  const keys = apiKeyQueries(documents);
  // Each applied event is announced (after the read model has it) to the gateways that cache principals;
  // membership events too, since a principal carries its organisation and role.
  const changes = new PrincipalChanges();
  const projections = [usersProjection, apiKeysProjection, ...orgProjections].map((projection) => announcing(projection, changes));
  const orgAnnouncing = projections.slice(2);
  // The audit log (issue 30, docs/adr/0023): this service records its own entries like any other,
  // and keeps everyone's, arriving on the bus.
  const recorder = createAuditRecorder({ eventStore, source: 'identity', clock, log });
  const audit = createAuditLog({ documents, users, recorder, bus: opts.bus, log });
  const orgs = createOrgs({ eventStore, documents, users, quota: opts.quota, log, clock, audit: recorder, projections: orgAnnouncing });
  // A real hash to verify against when the email is unknown, so both failures take as long.
  const dummyHash = hashPassword(randomBytes(16).toString('hex'), scryptParams);

  const run = async (...args: Parameters<typeof handleCommand>) => {
    const result = await handleCommand(...args);
    await projectInline(projections, result.recorded, documents, eventStore);
    return result;
  };

  async function register(input: { email: string; password: string; full_name?: string | null; language?: 'tr' | 'en'; origin?: string }): Promise<UserDoc> {
    const email = input.email.trim();
    if (!MailChecker.isValid(email)) {
      throw new ValidationError('Disposable or invalid email addresses are not accepted. Please use a permanent address.');
    }
    const fullName = input.full_name?.trim() || null;
    const userId = randomUUID();
    const passwordHash = await hashPassword(input.password, scryptParams);

    const claim = await aggregateStream(eventStore, emailStream(email), emailDecider);
    const owner = claim.state.owner;
    const abandoned = owner !== null && (await eventStore.readStream(userStream(owner))).length === 0 ? owner : null;
    await run(eventStore, emailStream(email), emailDecider, claimEmail(userId, abandoned));
    await run(eventStore, userStream(userId), userDecider, {
      type: 'register_user',
      data: { user_id: userId, email, full_name: fullName, password_hash: passwordHash, is_admin: false, now: clock(), language: input.language ?? 'tr' },
    });
    await requestEmailVerification(userId, input.language ?? 'tr', input.origin);
    const user = await users.byId(userId);
    if (!user) throw new Error('registered user missing from the read model');
    log.info({ user_id: userId }, 'user registered');
    return user;
  }

  /**
   * Checks a password, throttled per source (loginThrottle.ts): the attempt is counted before the
   * (deliberately slow) check, so concurrent guesses cannot all be checked. Returns the user and a
   * device token for the client to keep.
   */
  async function login(
    emailInput: string,
    password: string,
    source: LoginSource = { ip: 'unknown' },
    from: AuditSource & { key?: string } = { ip: source.ip },
  ): Promise<{ user: UserDoc; device: string }> {
    const email = normaliseEmail(emailInput);
    const signIn = async (user: UserDoc | null, outcome: 'success' | 'failure', reason?: string) =>
      audit.recordSignIn({ ...from, userId: user?.id ?? null, orgId: user ? (await orgs.queries.membershipOf(user.id))?.org_id : null, outcome, method: 'password', reason });
    let reservation: Awaited<ReturnType<typeof throttle.reserve>>;
    try {
      reservation = await throttle.reserve(email, source);
    } catch (e) {
      await signIn(await users.byEmail(email), 'failure', 'throttled');
      throw e;
    }
    const user = await users.byEmail(email);
    // A user from single sign-on has no password: checked against the dummy, so it takes as long.
    const ok = user?.password_hash ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, await dummyHash), false);
    if (!user || !ok) {
      log.info({ reason: user ? 'wrong_password' : 'unknown_email' }, 'login failed');
      await signIn(user, 'failure', user ? 'wrong_password' : 'unknown_account');
      throw new UnauthorizedError('Login failed. Please check your details.');
    }
    await throttle.succeeded(email, source, reservation);
    // Said only to someone who knows the password, so it tells a stranger nothing about the account.
    // Admins keep password login: the way in when the company directory is down.
    if (!user.is_admin && !(await orgs.passwordLoginAllowed(user.id))) {
      log.info({ user_id: user.id, reason: 'password_login_disabled' }, 'login failed');
      await signIn(user, 'failure', 'password_login_disabled');
      throw new PasswordLoginDisabledError();
    }
    await run(eventStore, userStream(user.id), userDecider, { type: 'record_login', data: { now: clock() } });
    await signIn(user, 'success');
    return { user: (await users.byId(user.id)) ?? user, device: throttle.deviceToken(email) };
  }

  const oidc = opts.sso ? createOidc(opts.sso, opts.deviceSecret, clock) : null;

  /** The fact of a sign-in, decided: logged, and told to the hook (an audit log). */
  async function signInDecided(fact: SignInFact): Promise<void> {
    if (fact.outcome === 'signed_in') log.info({ user_id: fact.user_id, method: fact.method, created: fact.created }, 'signed in');
    // The reason is the library's words (never a token or a secret), for the operator: a 503 is often a wrong client secret.
    else log[fact.code === 'sso_unavailable' ? 'warn' : 'info']({ method: fact.method, code: fact.code, reason: fact.reason }, 'sign-in failed');
    // The audit log keeps the sign-in once, as it keeps a password login's (ADR 0023); a failure names no address.
    await audit
      .recordSignIn(
        fact.outcome === 'signed_in'
          ? { ip: fact.ip, userId: fact.user_id, orgId: fact.org_id, outcome: 'success', method: 'oidc' }
          : { ip: fact.ip, userId: null, outcome: 'failure', method: 'oidc', reason: fact.code },
      )
      .catch((err: unknown) => log.error({ err }, 'the sign-in could not be audited'));
    try {
      await opts.onSignIn?.(fact);
    } catch (err) {
      log.error({ err }, 'the sign-in hook failed');
    }
  }

  /** Whether the user a link points to is gone for good: deleted, or never created by a sign-in that crashed a minute ago or more. */
  async function abandonedOwner(owner: string | null, linkedAt: Date | null): Promise<string | null> {
    if (!owner || (await users.byId(owner))) return null;
    const events = await eventStore.readStream(userStream(owner));
    if (events.some((e) => e.type === 'user_deleted')) return owner;
    return events.length === 0 && linkedAt && clock().getTime() - linkedAt.getTime() > 60_000 ? owner : null;
  }

  /**
   * The Baret user of a company account: the one linked to issuer + subject; else, at the first
   * sign-in, the account registered with the same address (only when the issuer vouches for the
   * address), linked from now on; else a new user without a password, who joins the organisation
   * configured for the address's domain as a member.
   */
  async function userForSso(claims: SsoClaims, language: 'tr' | 'en'): Promise<{ user: UserDoc; created: boolean; orgId: string | null }> {
    const stream = ssoLinkStream(claims.issuer, claims.subject);
    for (let attempt = 0; ; attempt++) {
      const linkEvents = await eventStore.readStream(stream);
      const owner = (await aggregateStream(eventStore, stream, ssoLinkDecider)).state.owner;
      const known = owner ? await users.byId(owner) : null;
      if (known) return { user: known, created: false, orgId: null };
      const abandoned = await abandonedOwner(owner, linkEvents.at(-1)?.createdAt ?? null);
      if (owner && !abandoned) {
        // Another sign-in of the same account is creating the user right now: wait for it (up to 30 s).
        if (attempt >= 300) throw SSO_ERRORS.unavailable();
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (!claims.email || !MailChecker.isValid(claims.email)) throw SSO_ERRORS.email();
      const email = claims.email;
      const existing = await users.byEmail(email);
      const now = clock();
      if (existing) {
        if (!claims.emailVerified) throw SSO_ERRORS.taken();
        // Keys made by whoever registered an unconfirmed address end before the link (a retry after a
        // crash finds the link made and would not come back here) and once more after it (claimUnconfirmed).
        const revokedBefore = existing.email_verified ? 0 : await revokeApiKeys(existing.id);
        try {
          await run(eventStore, stream, ssoLinkDecider, linkSsoIdentity(existing.id, claims, abandoned, now));
        } catch (e) {
          if (e instanceof ConflictError && attempt < 300) continue;
          throw e;
        }
        await run(eventStore, userStream(existing.id), userDecider, { type: 'link_sso', data: { issuer: claims.issuer, subject: claims.subject, now } });
        log.info({ user_id: existing.id }, 'single sign-on linked to an existing account');
        if (!existing.email_verified) await claimUnconfirmed(existing, claims.issuer, revokedBefore);
        return { user: existing, created: false, orgId: await joinConfiguredOrg(existing.id, email) };
      }
      const userId = randomUUID();
      try {
        await run(eventStore, stream, ssoLinkDecider, linkSsoIdentity(userId, claims, abandoned, now));
      } catch (e) {
        if (e instanceof ConflictError && attempt < 300) continue;
        throw e;
      }
      const claim = await aggregateStream(eventStore, emailStream(email), emailDecider);
      const emailOwner = claim.state.owner;
      const emailAbandoned = emailOwner !== null && (await eventStore.readStream(userStream(emailOwner))).length === 0 ? emailOwner : null;
      try {
        await run(eventStore, emailStream(email), emailDecider, claimEmail(userId, emailAbandoned));
      } catch (e) {
        // Someone registered the address a moment ago: the link is given back, and the person told.
        await run(eventStore, stream, ssoLinkDecider, { type: 'release', data: { user_id: userId } });
        if (e instanceof ConflictError) throw SSO_ERRORS.taken();
        throw e;
      }
      await run(eventStore, userStream(userId), userDecider, {
        type: 'register_user',
        data: {
          user_id: userId,
          email,
          full_name: claims.name,
          password_hash: '',
          // Only an address the identity provider vouches for; otherwise once the link is opened.
          is_admin: claims.emailVerified && adminEmails.has(normaliseEmail(email)),
          now,
          language,
          sso: { issuer: claims.issuer, subject: claims.subject },
          ...(claims.emailVerified ? { email_verified: true } : {}),
        },
      });
      if (!claims.emailVerified) await requestEmailVerification(userId, language);
      const user = await users.byId(userId);
      if (!user) throw new Error('registered user missing from the read model');
      log.info({ user_id: userId }, 'user registered by single sign-on');
      return { user, created: true, orgId: await joinConfiguredOrg(userId, email) };
    }
  }

  /**
   * A company sign-in proved the address of an account whose address was never confirmed (issue
   * 37): whoever registered it may not be its owner, so the password they set stopped working and
   * their sessions ended with the link (the user decider), and the API keys made with it end; the
   * address counts as confirmed (BARET_ADMIN_EMAILS may promote it). The audit log says what was removed.
   */
  async function claimUnconfirmed(user: UserDoc, issuer: string, revokedBefore: number): Promise<void> {
    const revoked = revokedBefore + (await revokeApiKeys(user.id));
    await promoteIfConfigured(user.id);
    log.info({ user_id: user.id, api_keys_revoked: revoked }, 'an unconfirmed account claimed by single sign-on');
    await recorder.record({
      action: 'auth.sso_linked',
      actorId: user.id,
      orgId: (await orgs.queries.membershipOf(user.id))?.org_id ?? null,
      objectType: 'user',
      objectId: user.id,
      details: { issuer, address: 'unconfirmed', password: user.password_hash ? 'removed' : 'none', revoked: String(revoked) },
      key: `sso-claim-${user.id}`,
    });
  }

  /** Revokes every API key of a user (a key deleted a moment ago by its owner is not an error); how many ended. */
  async function revokeApiKeys(userId: string): Promise<number> {
    let revoked = 0;
    for (const key of await keys.ofUser(userId)) {
      try {
        await deleteApiKey(userId, key.id);
        revoked++;
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
      }
    }
    return revoked;
  }

  /** The organisation configured for the address's domain (OIDC_ORG_DOMAINS), joined as a member; null when none or not joined. */
  async function joinConfiguredOrg(userId: string, email: string): Promise<string | null> {
    const domain = normaliseEmail(email).split('@').pop() ?? '';
    const orgId = opts.sso?.orgDomains.get(domain);
    if (!orgId) return null;
    return (await orgs.joinBySso(userId, orgId)) ? orgId : null;
  }

  /** Where to send the browser to sign in with the company account, and the flow's cookie. */
  async function ssoStart(redirectTo: string | null): Promise<{ url: string; cookie: string }> {
    if (!oidc) throw SSO_ERRORS.not_configured();
    return oidc.start(redirectTo);
  }

  /**
   * THE place a single sign-on is decided (the hook for an audit log: `signInDecided`): the flow
   * of the cookie is finished with what the issuer sent back, the ID token checked, the user found
   * or created, the login recorded. Any failure is one SsoError, and nothing is created before the
   * token passed every check.
   */
  async function signInWithSso(
    cookie: string | undefined,
    params: Record<string, string>,
    source: { ip: string; language: 'tr' | 'en' },
  ): Promise<{ user: UserDoc; created: boolean; redirectTo: string | null }> {
    if (!oidc) throw SSO_ERRORS.not_configured();
    let email: string | null = null;
    try {
      if (params.error) throw SSO_ERRORS.denied();
      const { claims, redirectTo } = await oidc.finish(cookie, params);
      email = claims.email;
      const { user, created, orgId } = await userForSso(claims, source.language);
      await run(eventStore, userStream(user.id), userDecider, { type: 'record_login', data: { now: clock() } });
      const membership = orgId ?? (await orgs.queries.membershipOf(user.id))?.org_id ?? null;
      await signInDecided({ outcome: 'signed_in', method: 'sso', user_id: user.id, email: user.email, issuer: claims.issuer, created, org_id: membership, ip: source.ip, at: clock().toISOString() });
      return { user: (await users.byId(user.id)) ?? user, created, redirectTo };
    } catch (e) {
      const known = e instanceof SsoError ? e : null;
      await signInDecided({ outcome: 'failed', method: 'sso', code: known?.code ?? 'sso_error', reason: e instanceof Error ? e.message : String(e), email, ip: source.ip, at: clock().toISOString() });
      throw e;
    }
  }

  async function createApiKey(userId: string, name: string) {
    const keyId = randomUUID();
    const prefix = randomBytes(4).toString('hex');
    const token = `${API_KEY_PREFIX}${prefix}_${randomBytes(24).toString('base64url')}`;
    await run(eventStore, apiKeyStream(keyId), apiKeyDecider, {
      type: 'create_api_key',
      data: { key_id: keyId, user_id: userId, name, token_prefix: `${API_KEY_PREFIX}${prefix}`, token_hash: sha256(token), now: clock() },
    });
    const doc = await keys.byId(keyId);
    if (!doc) throw new Error('created key missing from the read model');
    return { ...publicKey(doc), token };
  }

  async function deleteApiKey(userId: string | null, keyId: string): Promise<void> {
    await run(eventStore, apiKeyStream(keyId), apiKeyDecider, { type: 'delete_api_key', data: { by_user: userId, now: clock() } });
  }

  async function deleteUser(userId: string, by: string, erasure = false): Promise<void> {
    const user = await users.byId(userId);
    await run(eventStore, userStream(userId), userDecider, { type: 'delete_user', data: { deleted_by: by, now: clock(), erasure } });
    for (const key of await keys.ofUser(userId)) await deleteApiKey(null, key.id);
    await orgs.userDeleted(userId);
    if (user) await run(eventStore, emailStream(user.email), emailDecider, { type: 'release', data: { user_id: userId } });
    // Every personal field of the user's events (address, name, password hash, tokens) unreadable from now on (docs/adr/0025).
    await shredderOf(eventStore)?.shred(`user:${userId}`);
    log.info({ user_id: userId, deleted_by: by, erasure }, 'user deleted');
  }

  /**
   * A user erases their own account (issue 30, `DELETE /me`) after proving it is them: their
   * password, or, for an account without one (single sign-on), a sign-in within the last
   * RECENT_LOGIN_MS (a login token issued that recently). Then as an admin's deletion: sessions and
   * API keys end, the membership goes, their events are shredded; the other services erase the
   * rest on `user_deleted` (jobs of an organisation stay, anonymised).
   */
  async function eraseAccount(principal: Principal, password: string | undefined): Promise<void> {
    const user = await users.byId(principal.userId);
    if (!user) throw new NotFoundError('This user does not exist.');
    if (password !== undefined) {
      if (!user.password_hash || !(await verifyPassword(password, user.password_hash))) throw new ReauthenticationError('The password is not correct.');
    } else {
      const recent = principal.via === 'jwt' && principal.authTime !== undefined && clock().getTime() - principal.authTime <= RECENT_LOGIN_MS;
      if (user.password_hash || !recent) throw new ReauthenticationError('Please confirm with your password to delete your account.');
    }
    await deleteUser(principal.userId, principal.userId, true);
  }

  async function promote(email: string): Promise<UserDoc> {
    const user = await users.byEmail(email);
    if (!user) throw new ValidationError(`No user with the email ${email}.`);
    await run(eventStore, userStream(user.id), userDecider, { type: 'promote_user', data: {} });
    return (await users.byId(user.id)) ?? user;
  }

  /** Users named in BARET_ADMIN_EMAILS who registered (and verified their address) before the setting are promoted at start. */
  async function promoteConfiguredAdmins(): Promise<void> {
    for (const email of adminEmails) {
      const user = await users.byEmail(email);
      if (user) await promoteIfConfigured(user.id);
    }
  }

  const settingsDocs = documents.collection<SettingsDoc>(SETTINGS);
  async function settings(): Promise<IdentitySettings> {
    const doc = await settingsDocs.get('identity');
    return { require_email_verification: doc?.require_email_verification ?? false };
  }
  async function changeSettings(changes: Partial<IdentitySettings>, by: string, from: AuditSource & { key?: string } = {}): Promise<IdentitySettings> {
    const before = await settings();
    const next = { ...before, ...changes };
    await settingsDocs.put('identity', { id: 'identity', ...next });
    log.info({ by, settings: next }, 'identity settings changed');
    // One entry per setting whose value changed (setting the same value again changes nothing).
    for (const name of Object.keys(changes) as Array<keyof IdentitySettings>) {
      if (before[name] === next[name]) continue;
      await recorder.record(settingChanged({ by, name, scope: 'admin', value: String(next[name]), previous: String(before[name]), from, key: from.key }));
    }
    return next;
  }

  const newToken = (userId: string) => {
    // The user id leads, so a link names its account; the rest is 256 random bits, kept only hashed.
    const token = `${userId}.${randomBytes(32).toString('base64url')}`;
    return { token, token_hash: sha256(token) };
  };
  const userOfToken = (token: string): string | null => {
    const id = token.split('.')[0] ?? '';
    return /^[0-9a-f-]{36}$/.test(id) ? id : null;
  };

  /**
   * Mails a reset link when the address has an account. The caller answers the same at once either
   * way (202, before any lookup), so neither the answer nor its timing tells whether an account exists.
   * At most 3 links per account per hour are sent; more requests are dropped quietly.
   */
  async function requestPasswordReset(emailInput: string, language: 'tr' | 'en', origin?: string): Promise<void> {
    const user = await users.byEmail(emailInput);
    if (!user) {
      log.info({ reason: 'unknown_email' }, 'password reset not sent');
      return;
    }
    const hourAgo = clock().getTime() - 3600_000;
    const recent = (await eventStore.readStream(userStream(user.id))).filter((e) => e.type === 'password_reset_requested' && e.createdAt.getTime() > hourAgo);
    if (recent.length >= 3) {
      log.info({ user_id: user.id, reason: 'too_many' }, 'password reset not sent');
      return;
    }
    await run(eventStore, userStream(user.id), userDecider, { type: 'request_password_reset', data: { ...newToken(user.id), language, now: clock(), ...(origin ? { origin } : {}) } });
    log.info({ user_id: user.id }, 'password reset link requested');
  }

  /**
   * Sets a new password with a reset link: the link, every earlier one and every session end. API
   * keys are credentials of their own and keep working, unless `revokeApiKeys` (a reset after a
   * suspected compromise): then every key of the account is revoked first — once the link is known
   * to be valid, so a retry after a crash finishes the job — and the audit log records which it was.
   */
  async function completePasswordReset(token: string, password: string, options: { revokeApiKeys?: boolean; from?: AuditSource } = {}): Promise<void> {
    const userId = userOfToken(token);
    if (!userId) throw new InvalidTokenError();
    const passwordHash = await hashPassword(password, scryptParams);
    const command = { type: 'complete_password_reset' as const, data: { token_hash: sha256(token), password_hash: passwordHash, now: clock() } };
    let revoked = 0;
    if (options.revokeApiKeys) {
      userDecider.decide(command, (await aggregateStream(eventStore, userStream(userId), userDecider)).state); // throws unless the link is valid
      revoked = await revokeApiKeys(userId);
    }
    const { recorded } = await run(eventStore, userStream(userId), userDecider, command);
    log.info({ user_id: userId, api_keys_revoked: revoked }, 'password reset');
    await recorder.record({
      action: 'auth.password_reset',
      actorId: userId,
      orgId: (await orgs.queries.membershipOf(userId))?.org_id ?? null,
      objectType: 'user',
      objectId: userId,
      ip: options.from?.ip,
      userAgent: options.from?.userAgent,
      details: { api_keys: options.revokeApiKeys ? 'revoked' : 'kept', revoked: String(revoked) },
      ...(recorded[0] ? { key: recorded[0].id } : {}),
    });
  }

  async function requestEmailVerification(userId: string, language: 'tr' | 'en', origin?: string): Promise<void> {
    await run(eventStore, userStream(userId), userDecider, { type: 'request_email_verification', data: { ...newToken(userId), language, now: clock(), ...(origin ? { origin } : {}) } });
  }

  async function verifyEmail(token: string): Promise<void> {
    const userId = userOfToken(token);
    if (!userId) throw new InvalidTokenError();
    await run(eventStore, userStream(userId), userDecider, { type: 'verify_email', data: { token_hash: sha256(token), now: clock() } });
    await promoteIfConfigured(userId);
  }

  /**
   * An address named in BARET_ADMIN_EMAILS makes its user an admin once it is verified (the
   * confirmation link, or the identity provider's email_verified), never before (issue 37): whoever
   * registers the address first cannot take the admin rights meant for its owner.
   */
  async function promoteIfConfigured(userId: string): Promise<void> {
    const user = await users.byId(userId);
    if (!user || user.is_admin || !user.email_verified || !adminEmails.has(normaliseEmail(user.email))) return;
    await run(eventStore, userStream(user.id), userDecider, { type: 'promote_user', data: {} });
    log.info({ user_id: user.id }, 'promoted to admin by configuration');
  }

  /** An admin confirms an address by hand, or mails its owner a link again (issue 40); null when no account has the address. */
  async function adminMail(email: string, action: 'verify' | 'email_verification' | 'password_reset', by: string, language: 'tr' | 'en', origin?: string): Promise<boolean> {
    const user = await users.byEmail(email);
    if (!user) return false;
    if (action === 'verify') await run(eventStore, userStream(user.id), userDecider, { type: 'mark_email_verified', data: { by, now: clock() } });
    else if (action === 'email_verification') await requestEmailVerification(user.id, language, origin);
    else await run(eventStore, userStream(user.id), userDecider, { type: 'request_password_reset', data: { ...newToken(user.id), language, now: clock(), ...(origin ? { origin } : {}) } });
    log.info({ user_id: user.id, action, by }, 'admin mail action');
    return true;
  }

  /** What identity keeps about a person, for their export (issue 30): the profile, organisation and API keys (never their hashes). */
  async function personalData(userId: string) {
    const user = await users.byId(userId);
    if (!user) return null;
    const membership = await orgs.queries.membershipOf(userId);
    return {
      ...publicUser(user),
      organisation: membership ? { org_id: membership.org_id, role: membership.role } : null,
      api_keys: (await keys.ofUser(userId)).map(publicKey),
      // What the audit log holds about them: what they did and what was done to their account (ADR 0023).
      audit_entries: await audit.about(userId),
    };
  }

  /** Who a user is now, with the organisation they belong to (read on every request, so a removal takes effect at once). */
  const toPrincipal = async (u: UserDoc): Promise<Omit<Principal, 'via'>> => {
    const membership = await orgs.queries.membershipOf(u.id);
    return {
      userId: u.id,
      email: u.email,
      fullName: u.full_name,
      isAdmin: u.is_admin,
      orgId: membership?.org_id ?? null,
      orgRole: membership?.role ?? null,
      sessionVersion: u.session_version ?? 0,
      emailVerified: u.email_verified ?? false,
      verificationRequired: !(u.email_verified ?? false) && (await settings()).require_email_verification,
    };
  };
  /** The quota account a user's analyses are charged to (their organisation's, or their own). */
  const quotaAccount = async (userId: string): Promise<string> => quotaAccountOf({ userId, orgId: (await orgs.queries.membershipOf(userId))?.org_id });

  const auth: AuthResolvers = {
    isApiKey: (token) => token.startsWith(API_KEY_PREFIX),
    userById: async (id) => {
      const u = await users.byId(id);
      return u ? await toPrincipal(u) : null;
    },
    userByApiKey: async (token) => {
      const key = await keys.byHash(sha256(token));
      if (!key) return null;
      const u = await users.byId(key.user_id);
      if (!u) return null;
      const now = clock();
      // Kept up to date, without a write on every request of a busy script.
      if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) > 10_000) await keys.touch(key, now);
      return await toPrincipal(u);
    },
  };

  const directory: UserDirectory = {
    getUsers: async (ids) => (await users.byIds(ids)).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
    listUsers: async () => (await users.all()).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
    listOrgs: () => orgs.listOrgs(),
  };

  const commands = { register, login, ssoStart, signInWithSso, ssoEnabled: () => oidc !== null, createApiKey, deleteApiKey, deleteUser, eraseAccount, promote, requestPasswordReset, completePasswordReset, requestEmailVerification, verifyEmail, adminMail, settings, changeSettings };

  const module: ServiceModule = {
    name: 'identity',
    tags: [
      { name: 'auth', description: 'Registration, login, the current user and API keys' },
      { name: 'admin', description: 'Administration (admins only)' },
      { name: 'organisations', description: 'Organisations: members, roles and invitations' },
      { name: 'audit', description: 'The audit log: who viewed, downloaded, deleted or changed what, and every sign-in (managers of an organisation, admins)' },
    ],
    routes: async (app) => {
      await app.register(identityRoutes({ commands, users, keys, quota: opts.quota, quotaAccount }));
      await app.register(orgRoutes(orgs));
      await app.register(ssoRoutes({ commands, orgs, ssoEnabled: oidc !== null }));
      await app.register(auditRoutes(audit));
    },
    tasks: audit.tasks,
    internal: identityInternalRoutes({ auth, directory, changes, personalData: (id) => personalData(id) }),
    indexes: {
      [USERS]: [{ email_lower: 1, deleted: 1 }, { deleted: 1, created_at: 1 }],
      [API_KEYS]: [{ token_hash: 1 }, { user_id: 1, created_at: -1 }],
      [MEMBERSHIPS]: [{ org_id: 1, joined_at: 1 }],
      [INVITES]: [{ token_hash: 1 }, { org_id: 1, created_at: -1 }],
      [AUDIT]: [{ sort_key: -1 }, { org_id: 1, sort_key: -1 }, { actor_id: 1, sort_key: -1 }, { object_id: 1, sort_key: -1 }],
    },
  };

  return { module, auth, directory, commands, users, keys, orgs, projections, changes, promoteConfiguredAdmins, audit, personalData };
}

/** The user an identity event concerns: the stream's user, or the owner of an API key. */
function userOf(event: RecordedEvent): string | null {
  if (event.streamId.startsWith('user-')) return event.streamId.slice('user-'.length);
  const owner = (event.data as { user_id?: unknown } | null)?.user_id;
  return typeof owner === 'string' ? owner : null;
}

/** The projection, announcing the user of every event it applied (docs/adr/0019). */
function announcing(projection: Projection, changes: PrincipalChanges): Projection {
  return {
    ...projection,
    async apply(event, documents, events) {
      await projection.apply(event, documents, events);
      const userId = userOf(event);
      if (userId) changes.announce(userId);
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
export type IdentityCommands = IdentityService['commands'];
