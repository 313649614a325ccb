import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, IllegalStateError, preferredLang, principalOf, problems } from '@baret/platform';
import type { IdentityCommands } from '../commands.js';
import type { Orgs } from '../org/orgs.js';
import { FLOW_COOKIE, FLOW_TTL_MS } from './oidc.js';

const bearer = [{ bearer: [] }];
/** The flow cookie goes only to the two single sign-on routes. */
const COOKIE_PATH = '/auth/sso';

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=') || undefined;
  }
  return undefined;
}

/** Only a path of this site is a place to come back to after signing in. */
const safeRedirect = (target: string | undefined | null): string | null =>
  target && target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\') ? target.slice(0, 500) : null;

const Param = (max: number) => Type.Optional(Type.String({ minLength: 1, maxLength: max }));

const SignInSettings = Type.Object(
  {
    password_login: Type.Boolean({ description: 'Whether the members may log in with a password; when false only single sign-on lets them in (Baret admins keep password login)' }),
    sso_enabled: Type.Boolean({ description: 'Whether this server offers single sign-on (OIDC_ISSUER is set)' }),
  },
  { description: 'How the members of an organisation sign in' },
);

const perAddress = (max: number, timeWindow: string) => ({ rateLimit: { max, timeWindow, keyGenerator: (req: { ip: string }) => `addr:${req.ip}` } });
const flowCookie = (value: string, maxAgeSeconds: number, https: boolean) =>
  `${FLOW_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${https ? '; Secure' : ''}`;

interface Deps {
  commands: IdentityCommands;
  orgs: Orgs;
  ssoEnabled: boolean;
}

/** Whether single sign-on is offered, its start, and its callback. */
function signInRoutes(instance: FastifyInstance, deps: Deps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/auth/sso',
    {
      schema: {
        tags: ['auth'],
        summary: 'Whether this server offers single sign-on with a company account (OpenID Connect)',
        response: { 200: Type.Object({ enabled: Type.Boolean() }) },
      },
    },
    async () => ({ enabled: deps.ssoEnabled }),
  );

  app.post(
    '/auth/sso/start',
    {
      config: perAddress(30, '1 minute'),
      schema: {
        tags: ['auth'],
        summary: 'Start a sign-in with the company account: where to send the browser, and a cookie that remembers the flow',
        description:
          'Authorization code flow with PKCE (S256), state and nonce. The answer sets the `baret_sso` cookie (HttpOnly, 10 minutes, path /auth/sso): ' +
          'the browser must then open `authorization_url`; the issuer sends it back to the redirect URL (the web app’s /login/sso page), which posts what it got to /auth/sso/callback. ' +
          '`redirect_to` is a path of this site to open once signed in.',
        body: Type.Object({ redirect_to: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ authorization_url: Type.String() }), ...problems(400, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const { url, cookie } = await deps.commands.ssoStart(safeRedirect(request.body?.redirect_to));
      reply.header('set-cookie', flowCookie(cookie, Math.floor(FLOW_TTL_MS / 1000), request.protocol === 'https'));
      reply.header('cache-control', 'no-store');
      return { authorization_url: url };
    },
  );

  app.post(
    '/auth/sso/callback',
    {
      config: perAddress(30, '1 minute'),
      schema: {
        tags: ['auth'],
        summary: 'Finish a sign-in with the company account: what the issuer sent back to the redirect page, for an access token',
        description:
          'The body is the query the issuer sent to the redirect page (`code` and `state`, or `error`). The ID token is checked against the issuer’s keys ' +
          '(signature, issuer, audience, expiry, nonce). A first sign-in creates the user (no password) and, for an address at a domain of `OIDC_ORG_DOMAINS`, ' +
          'adds them to that organisation as a member. Refusals are 4xx problems with a `code`: `sso_flow_invalid`, `sso_denied`, `sso_code_invalid`, ' +
          '`sso_token_signature`, `sso_token_audience`, `sso_token_expired`, `sso_token_invalid`, `sso_email_missing`, `sso_email_taken` (409); `sso_unavailable` (503).',
        body: Type.Object(
          {
            code: Param(2000),
            state: Param(500),
            iss: Param(500),
            error: Param(200),
            error_description: Type.Optional(Type.String({ maxLength: 2000 })),
            session_state: Param(500),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('bearer'),
            expires_in: Type.Integer({ description: 'seconds' }),
            created: Type.Boolean({ description: 'Whether this sign-in created the account' }),
            redirect_to: Type.Union([Type.String(), Type.Null()], { description: 'The path given at the start, if any' }),
          }),
          ...problems(400, 401, 403, 404, 409, 429, 503),
        },
      },
    },
    async (request, reply) => {
      // The flow is over either way: its cookie is dropped.
      reply.header('set-cookie', flowCookie('', 0, request.protocol === 'https'));
      reply.header('cache-control', 'no-store');
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.body)) if (typeof v === 'string') params[k] = v;
      const { user, created, redirectTo } = await deps.commands.signInWithSso(cookieOf(request.headers.cookie, FLOW_COOKIE), params, {
        ip: request.ip,
        language: preferredLang(request.headers['accept-language']),
      });
      return { access_token: app.signAccessToken(user.id, user.session_version ?? 0), token_type: 'bearer' as const, expires_in: app.accessTokenTtl, created, redirect_to: redirectTo };
    },
  );
}

/** The organisation's sign-in setting: whether its members may log in with a password. */
function orgSignInRoutes(instance: FastifyInstance, deps: Deps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/orgs/:id/sign-in',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'How the members of your organisation sign in (admins: any organisation)',
        security: bearer,
        params: IdParams,
        response: { 200: SignInSettings, ...problems(401, 404) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { ...(await deps.orgs.signInSettings(p.userId, p.isAdmin, request.params.id)), sso_enabled: deps.ssoEnabled };
    },
  );

  app.put(
    '/orgs/:id/sign-in',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'Allow or forbid password login for the members (managers of the organisation, and admins)',
        description:
          'With `password_login: false` the members can no longer log in with a password (403 `password_login_disabled`); single sign-on still lets them in. ' +
          'It can be turned off only on a server that offers single sign-on (409 otherwise). Baret admins keep password login.',
        security: bearer,
        params: IdParams,
        body: Type.Object({ password_login: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: SignInSettings, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      if (!request.body.password_login && !deps.ssoEnabled) {
        throw new IllegalStateError('Password login can be turned off only when single sign-on is set up on this server.');
      }
      return { ...(await deps.orgs.setPasswordLogin(p.userId, p.isAdmin, request.params.id, request.body.password_login, auditSourceOf(request, p.userId))), sso_enabled: deps.ssoEnabled };
    },
  );
}

/** Single sign-on with OpenID Connect (issue 30, docs/adr/0022), and the organisation's sign-in setting. */
export const ssoRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    signInRoutes(instance, deps);
    orgSignInRoutes(instance, deps);
  };
