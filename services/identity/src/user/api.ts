/** The routes of a user's account: registering, logging in, the links mailed to them, their profile, erasing it; and an admin's help. */
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { auditSourceOf, IdParams, NotFoundError, NullableString, preferredLang, principalOf, problems, QuotaSchema, requestOrigin, type QuotaClient } from '@baret/platform';
import type { IdentityCommands } from '../commands.js';
import type { UserDoc, UserQueries } from '../readModels/users.js';
import { publicUser } from './view.js';

const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    full_name: Type.Union([Type.String(), Type.Null()]),
    is_admin: Type.Boolean(),
    last_login_at: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    email_verified: Type.Boolean({ description: 'Whether the user opened the link mailed at registration' }),
    quota: QuotaSchema,
  },
  { description: 'A user with their quota' },
);

const EmailString = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
const bearer = [{ bearer: [] }];
const TokenBody = Type.Object({ token: Type.String({ minLength: 10, maxLength: 200 }) }, { additionalProperties: false });

export interface UserRouteDeps {
  commands: IdentityCommands;
  users: UserQueries;
  quota: QuotaClient;
  /** The quota account a user's analyses are charged to: their organisation's when they belong to one. */
  quotaAccount(userId: string): Promise<string>;
}

const DEVICE_COOKIE = 'baret_device';
/** The device cookie's value in a Cookie header, if any. */
function deviceCookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === DEVICE_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
}

const withQuota = async (deps: UserRouteDeps, user: UserDoc) => ({
  ...publicUser(user),
  quota: await deps.quota.getQuota(await deps.quotaAccount(user.id)),
});
const perAddress = (max: number, timeWindow: string) => ({
  rateLimit: { max, timeWindow, keyGenerator: (req: { ip: string }) => `addr:${req.ip}` },
});

/** A person creates an account, and logs in with its password. */
export function registerAndLoginRoutes(instance: FastifyInstance, deps: UserRouteDeps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/auth/register',
    {
      config: perAddress(20, '1 hour'),
      schema: {
        tags: ['auth'],
        summary: 'Create an account (free plan); disposable addresses are refused',
        body: Type.Object(
          {
            email: EmailString,
            password: Type.String({ minLength: 8, maxLength: 256 }),
            full_name: Type.Optional(NullableString({ maxLength: 120 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: UserSchema, ...problems(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const user = await deps.commands.register({ ...request.body, language: preferredLang(request.headers['accept-language']), origin: requestOrigin(request) });
      return reply.code(201).send(await withQuota(deps, user));
    },
  );

  app.post(
    '/auth/login',
    {
      config: perAddress(20, '1 minute'),
      schema: {
        tags: ['auth'],
        summary: 'Log in; the same answer for an unknown email and a wrong password',
        body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 256 }) }),
        response: {
          200: Type.Object({ access_token: Type.String(), token_type: Type.Literal('bearer'), expires_in: Type.Integer({ description: 'seconds' }) }),
          ...problems(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const device = deviceCookieOf(request.headers.cookie);
      const { user, device: next } = await deps.commands.login(request.body.email, request.body.password, { ip: request.ip, device }, auditSourceOf(request));
      // The device cookie lets this browser in even while strangers' guesses throttle the account
      // (docs/adr/0005). Only /auth/login reads it; scripts without cookies fall back to the address.
      reply.header(
        'set-cookie',
        `${DEVICE_COOKIE}=${next}; Path=/auth/login; Max-Age=${365 * 24 * 3600}; HttpOnly; SameSite=Strict${request.protocol === 'https' ? '; Secure' : ''}`,
      );
      return { access_token: app.signAccessToken(user.id, user.session_version ?? 0), token_type: 'bearer' as const, expires_in: app.accessTokenTtl };
    },
  );
}

/** A forgotten password: the link mailed, and the new password set with it. */
export function passwordResetRoutes(instance: FastifyInstance, deps: UserRouteDeps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/auth/password-reset',
    {
      config: perAddress(5, '15 minutes'),
      schema: {
        tags: ['auth'],
        summary: 'Mail a password reset link (valid 1 hour, once); the same answer whether or not the address has an account',
        body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false }),
        response: { 202: Type.Object({ status: Type.Literal('accepted') }), ...problems(400, 429) },
      },
    },
    async (request, reply) => {
      const { email } = request.body;
      const lang = preferredLang(request.headers['accept-language']);
      const origin = requestOrigin(request);
      // Answered before the address is even looked up: the answer and its timing say nothing about accounts.
      setImmediate(() => void deps.commands.requestPasswordReset(email, lang, origin).catch((err: unknown) => request.log.error({ err }, 'password reset request failed')));
      return reply.code(202).send({ status: 'accepted' as const });
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      config: perAddress(20, '15 minutes'),
      schema: {
        tags: ['auth'],
        summary:
          "Set a new password with a reset link's token; the link, earlier links and every session of the account end. API keys keep working unless revoke_api_keys is true (after a suspected compromise); the audit log records which",
        body: Type.Object(
          {
            token: Type.String({ minLength: 10, maxLength: 200 }),
            password: Type.String({ minLength: 8, maxLength: 256 }),
            revoke_api_keys: Type.Optional(Type.Boolean({ description: 'Also revoke every API key of the account, in the same action. Default false: keys keep working.' })),
          },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...problems(400, 429) },
      },
    },
    async (request, reply) => {
      await deps.commands.completePasswordReset(request.body.token, request.body.password, { revokeApiKeys: request.body.revoke_api_keys ?? false, from: auditSourceOf(request) });
      return reply.code(204).send(null);
    },
  );
}

/** The e-mail address confirmed with the link mailed at registration, or mailed again. */
export function emailVerificationRoutes(instance: FastifyInstance, deps: UserRouteDeps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/auth/verify-email',
    {
      config: perAddress(30, '15 minutes'),
      schema: { tags: ['auth'], summary: 'Confirm your e-mail address with the token of the link mailed at registration', body: TokenBody, response: { 204: Type.Null(), ...problems(400, 429) } },
    },
    async (request, reply) => {
      await deps.commands.verifyEmail(request.body.token);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/verify-email/resend',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 3, timeWindow: '1 hour', keyGenerator: (req: { principal: { userId: string } | null; ip: string }) => `verify:${req.principal?.userId ?? req.ip}` } },
      schema: { tags: ['auth'], summary: 'Mail the confirmation link again', security: bearer, response: { 202: Type.Object({ status: Type.Literal('accepted') }), ...problems(401, 429) } },
    },
    async (request, reply) => {
      await deps.commands.requestEmailVerification(principalOf(request).userId, preferredLang(request.headers['accept-language']), requestOrigin(request));
      return reply.code(202).send({ status: 'accepted' as const });
    },
  );
}

/** The current user, with the quota their analyses are charged to. */
export function profileRoutes(instance: FastifyInstance, deps: UserRouteDeps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/auth/me',
    {
      preHandler: app.requireUser,
      schema: { tags: ['auth'], summary: 'The current user with quota', security: bearer, response: { 200: UserSchema, ...problems(401) } },
    },
    async (request) => {
      const user = await deps.users.byId(principalOf(request).userId);
      if (!user) throw new NotFoundError('This user does not exist.');
      return withQuota(deps, user);
    },
  );
}

/** A user erases their account; an admin helps with a person's mail, or deletes a user. */
export function accountRoutes(instance: FastifyInstance, deps: UserRouteDeps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/me',
    {
      preHandler: app.requireUser,
      // Each try checks a password: a stolen session cannot guess it at speed.
      config: { rateLimit: { max: 5, timeWindow: '15 minutes' } },
      schema: {
        tags: ['auth'],
        summary: 'Erase your account: your profile, sessions, API keys, notifications and your own jobs; jobs of your organisation stay, anonymised. Cannot be undone',
        description:
          'Needs your password in the body. An account without a password (single sign-on) may leave it out within 5 minutes of signing in (the login token must be that fresh); otherwise 403 `reauthentication_required`.',
        security: bearer,
        body: Type.Object({ password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })) }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      await deps.commands.eraseAccount(principalOf(request), request.body.password);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/admin/accounts/mail',
    {
      preHandler: app.requireAdmin,
      config: { rateLimit: { max: 60, timeWindow: '1 hour' } },
      schema: {
        tags: ['admin'],
        summary: 'Help a person whose mail did not reach them: mark their address confirmed, or mail them a confirmation or password reset link again',
        description:
          '`verify` confirms the address at once (the "confirm your e-mail" banner goes away); `email_verification` and `password_reset` mail a new link (by SMTP, or to the outbox without it), whose token the admin never sees.',
        security: bearer,
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 254 }), action: Type.Union([Type.Literal('verify'), Type.Literal('email_verification'), Type.Literal('password_reset')]) },
          { additionalProperties: false },
        ),
        response: { 202: Type.Object({ status: Type.Literal('accepted') }), ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { email, action } = request.body;
      const found = await deps.commands.adminMail(email, action, principalOf(request).userId, preferredLang(request.headers['accept-language']), requestOrigin(request));
      if (!found) throw new NotFoundError('No account has this address.');
      return reply.code(202).send({ status: 'accepted' as const });
    },
  );

  app.delete(
    '/admin/users/:id',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Delete a user with their API keys, quota and jobs; cannot be undone',
        security: bearer,
        params: IdParams,
        response: { 204: Type.Null(), ...problems(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deps.commands.deleteUser(request.params.id, principalOf(request).userId);
      return reply.code(204).send(null);
    },
  );
}
