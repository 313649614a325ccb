import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { identityInternalRoutes } from './internal.js';
import {
  API_KEY_PREFIX,
  aggregateStream,
  csv,
  handleCommand,
  DomainError,
  NotFoundError,
  PrincipalChanges,
  projectInline,
  shredderOf,
  quotaAccountOf,
  UnauthorizedError,
  ValidationError,
  type AuthResolvers,
  type DocumentStore,
  type EventStore,
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
import { emailDecider, emailStream, normaliseEmail } from './user/emailClaim.js';
import { InvalidTokenError, userDecider } from './user/businessLogic.js';
import { userStream } from './user/user.js';
import { DEFAULT_THROTTLE, LoginThrottle, type LoginSource, type ThrottleRules } from './loginThrottle.js';
import { createOrgs, orgProjections } from './orgs.js';
import { orgRoutes } from './orgApi.js';
import { INVITES, MEMBERSHIPS } from './readModels/orgs.js';

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
  /** Signs device cookies (the JWT secret). */
  deviceSecret: string;
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
  const orgs = createOrgs({ eventStore, documents, users, quota: opts.quota, log, clock });
  // A real hash to verify against when the email is unknown, so both failures take as long.
  const dummyHash = hashPassword(randomBytes(16).toString('hex'), scryptParams);

  const run = async (...args: Parameters<typeof handleCommand>) => {
    const result = await handleCommand(...args);
    await projectInline(projections, result.recorded, documents, eventStore);
    return result;
  };

  async function register(input: { email: string; password: string; full_name?: string | null; language?: 'tr' | 'en' }): Promise<UserDoc> {
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
    await run(eventStore, emailStream(email), emailDecider, { type: 'claim_email', data: { user_id: userId, abandoned_owner: abandoned } });
    await run(eventStore, userStream(userId), userDecider, {
      type: 'register_user',
      data: { user_id: userId, email, full_name: fullName, password_hash: passwordHash, is_admin: adminEmails.has(normaliseEmail(email)), now: clock(), language: input.language ?? 'tr' },
    });
    await requestEmailVerification(userId, input.language ?? 'tr');
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
  async function login(emailInput: string, password: string, source: LoginSource = { ip: 'unknown' }): Promise<{ user: UserDoc; device: string }> {
    const email = normaliseEmail(emailInput);
    const reservation = await throttle.reserve(email, source);
    const user = await users.byEmail(email);
    const ok = user ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, await dummyHash), false);
    if (!user || !ok) {
      log.info({ reason: user ? 'wrong_password' : 'unknown_email' }, 'login failed');
      throw new UnauthorizedError('Login failed. Please check your details.');
    }
    await throttle.succeeded(email, source, reservation);
    await run(eventStore, userStream(user.id), userDecider, { type: 'record_login', data: { now: clock() } });
    return { user: (await users.byId(user.id)) ?? user, device: throttle.deviceToken(email) };
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
    if (user) await run(eventStore, emailStream(user.email), emailDecider, { type: 'release_email', data: { user_id: userId } });
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

  /** Users named in BARET_ADMIN_EMAILS who registered before the setting are promoted at start. */
  async function promoteConfiguredAdmins(): Promise<void> {
    for (const email of adminEmails) {
      const user = await users.byEmail(email);
      if (user && !user.is_admin) {
        await promote(email);
        log.info({ user_id: user.id }, 'promoted to admin by configuration');
      }
    }
  }

  const settingsDocs = documents.collection<SettingsDoc>(SETTINGS);
  async function settings(): Promise<IdentitySettings> {
    const doc = await settingsDocs.get('identity');
    return { require_email_verification: doc?.require_email_verification ?? false };
  }
  async function changeSettings(changes: Partial<IdentitySettings>, by: string): Promise<IdentitySettings> {
    const next = { ...(await settings()), ...changes };
    await settingsDocs.put('identity', { id: 'identity', ...next });
    log.info({ by, settings: next }, 'identity settings changed');
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
  async function requestPasswordReset(emailInput: string, language: 'tr' | 'en'): Promise<void> {
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
    await run(eventStore, userStream(user.id), userDecider, { type: 'request_password_reset', data: { ...newToken(user.id), language, now: clock() } });
    log.info({ user_id: user.id }, 'password reset link requested');
  }

  /** Sets a new password with a reset link: the link, every earlier one and every session end. */
  async function completePasswordReset(token: string, password: string): Promise<void> {
    const userId = userOfToken(token);
    if (!userId) throw new InvalidTokenError();
    const passwordHash = await hashPassword(password, scryptParams);
    await run(eventStore, userStream(userId), userDecider, { type: 'complete_password_reset', data: { token_hash: sha256(token), password_hash: passwordHash, now: clock() } });
    log.info({ user_id: userId }, 'password reset');
  }

  async function requestEmailVerification(userId: string, language: 'tr' | 'en'): Promise<void> {
    await run(eventStore, userStream(userId), userDecider, { type: 'request_email_verification', data: { ...newToken(userId), language, now: clock() } });
  }

  async function verifyEmail(token: string): Promise<void> {
    const userId = userOfToken(token);
    if (!userId) throw new InvalidTokenError();
    await run(eventStore, userStream(userId), userDecider, { type: 'verify_email', data: { token_hash: sha256(token), now: clock() } });
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

  const commands = { register, login, createApiKey, deleteApiKey, deleteUser, eraseAccount, promote, requestPasswordReset, completePasswordReset, requestEmailVerification, verifyEmail, settings, changeSettings };

  const module: ServiceModule = {
    name: 'identity',
    tags: [
      { name: 'auth', description: 'Registration, login, the current user and API keys' },
      { name: 'admin', description: 'Administration (admins only)' },
      { name: 'organisations', description: 'Organisations: members, roles and invitations' },
    ],
    routes: async (app) => {
      await app.register(identityRoutes({ commands, users, keys, quota: opts.quota, quotaAccount }));
      await app.register(orgRoutes(orgs));
    },
    tasks: [],
    internal: identityInternalRoutes({ auth, directory, changes, personalData: (id) => personalData(id) }),
    indexes: {
      [USERS]: [{ email_lower: 1, deleted: 1 }, { deleted: 1, created_at: 1 }],
      [API_KEYS]: [{ token_hash: 1 }, { user_id: 1, created_at: -1 }],
      [MEMBERSHIPS]: [{ org_id: 1, joined_at: 1 }],
      [INVITES]: [{ token_hash: 1 }, { org_id: 1, created_at: -1 }],
    },
  };

  return { module, auth, directory, commands, users, keys, orgs, projections, changes, promoteConfiguredAdmins, personalData };
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
