import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { identityInternalRoutes } from './internal.js';
import {
  API_KEY_PREFIX,
  aggregateStream,
  csv,
  handleCommand,
  projectInline,
  UnauthorizedError,
  ValidationError,
  type AuthResolvers,
  type DocumentStore,
  type EventStore,
  type Principal,
  type QuotaClient,
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
import { userDecider } from './user/businessLogic.js';
import { userStream } from './user/user.js';
import { DEFAULT_THROTTLE, LoginThrottle, type LoginSource, type ThrottleRules } from './loginThrottle.js';

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

export { API_KEY_PREFIX };
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export interface PublicUser {
  id: string;
  email: string;
  full_name: string | null;
  is_admin: boolean;
  last_login_at: string | null;
  created_at: string;
}

export const publicUser = (u: UserDoc): PublicUser => ({
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
  const projections = [usersProjection, apiKeysProjection];
  // A real hash to verify against when the email is unknown, so both failures take as long.
  const dummyHash = hashPassword(randomBytes(16).toString('hex'), scryptParams);

  const run = async (...args: Parameters<typeof handleCommand>) => {
    const result = await handleCommand(...args);
    await projectInline(projections, result.recorded, documents, eventStore);
    return result;
  };

  async function register(input: { email: string; password: string; full_name?: string | null }): Promise<UserDoc> {
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
      data: { user_id: userId, email, full_name: fullName, password_hash: passwordHash, is_admin: adminEmails.has(normaliseEmail(email)), now: clock() },
    });
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

  async function deleteUser(userId: string, by: string): Promise<void> {
    const user = await users.byId(userId);
    await run(eventStore, userStream(userId), userDecider, { type: 'delete_user', data: { deleted_by: by, now: clock() } });
    for (const key of await keys.ofUser(userId)) await deleteApiKey(null, key.id);
    if (user) await run(eventStore, emailStream(user.email), emailDecider, { type: 'release_email', data: { user_id: userId } });
    log.info({ user_id: userId, deleted_by: by }, 'user deleted');
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

  const toPrincipal = (u: UserDoc): Omit<Principal, 'via'> => ({ userId: u.id, email: u.email, fullName: u.full_name, isAdmin: u.is_admin });

  const auth: AuthResolvers = {
    isApiKey: (token) => token.startsWith(API_KEY_PREFIX),
    userById: async (id) => {
      const u = await users.byId(id);
      return u ? toPrincipal(u) : null;
    },
    userByApiKey: async (token) => {
      const key = await keys.byHash(sha256(token));
      if (!key) return null;
      const u = await users.byId(key.user_id);
      if (!u) return null;
      const now = clock();
      // Kept up to date, without a write on every request of a busy script.
      if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) > 10_000) await keys.touch(key, now);
      return toPrincipal(u);
    },
  };

  const directory: UserDirectory = {
    getUsers: async (ids) => (await users.byIds(ids)).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
    listUsers: async () => (await users.all()).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
  };

  const commands = { register, login, createApiKey, deleteApiKey, deleteUser, promote };

  const module: ServiceModule = {
    name: 'identity',
    tags: [
      { name: 'auth', description: 'Registration, login, the current user and API keys' },
      { name: 'admin', description: 'Administration (admins only)' },
    ],
    routes: identityRoutes({ commands, users, keys, quota: opts.quota }),
    tasks: [],
    internal: identityInternalRoutes({ auth, directory }),
    indexes: {
      [USERS]: [{ email_lower: 1, deleted: 1 }, { deleted: 1, created_at: 1 }],
      [API_KEYS]: [{ token_hash: 1 }, { user_id: 1, created_at: -1 }],
    },
  };

  return { module, auth, directory, commands, users, keys, projections, promoteConfiguredAdmins };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
export type IdentityCommands = IdentityService['commands'];
