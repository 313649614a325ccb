/**
 * Single sign-on with OpenID Connect (issue 30, docs/adr/0022): the authorization code flow with
 * PKCE, state and nonce, through panva's openid-client. The ID token is checked by the library
 * (issuer, audience, authorized party, expiry, nonce) and its signature against the issuer's keys
 * (JWKS from discovery; `enableNonRepudiationChecks`), so a token altered on its way is refused even
 * when it came straight from the token endpoint.
 *
 * The flow's secrets (state, nonce, PKCE verifier) live in one cookie, encrypted and authenticated
 * with a key derived from JWT_SECRET (AES-256-GCM), bound to the browser that started the flow:
 * nothing is stored on the server, so any identity replica can finish a flow another one started.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { DomainError } from '@baret/platform';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Where the issuer sends the browser back: the web app's /login/sso page. */
  redirectUrl: string;
  scopes: string;
}

/** A sign-in with the company account that did not succeed, with a code the web app and the logs can tell apart. */
export class SsoError extends DomainError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Every way a single sign-on can fail, worded for the person at the login page (messages.ts has the Turkish). */
export const SSO_ERRORS = {
  not_configured: () => new SsoError(404, 'sso_not_configured', 'Single sign-on is not set up on this server.'),
  flow: () => new SsoError(400, 'sso_flow_invalid', 'The sign-in with your company account was interrupted or took too long. Please start again.'),
  denied: () => new SsoError(401, 'sso_denied', 'Your company account did not allow the sign-in.'),
  code: () => new SsoError(401, 'sso_code_invalid', 'This sign-in was already used or has expired. Please start again.'),
  signature: () => new SsoError(401, 'sso_token_signature', 'The sign-in was refused: the identity token’s signature is not valid.'),
  audience: () => new SsoError(401, 'sso_token_audience', 'The sign-in was refused: the identity token was issued for another application.'),
  expired: () => new SsoError(401, 'sso_token_expired', 'The sign-in was refused: the identity token has expired. Please start again.'),
  token: () => new SsoError(401, 'sso_token_invalid', 'The sign-in was refused: the identity token is not valid.'),
  unavailable: () => new SsoError(503, 'sso_unavailable', 'The company sign-in cannot be reached right now. Please try again in a moment.'),
  email: () => new SsoError(403, 'sso_email_missing', 'Your company account did not share a verified e-mail address, which Baret needs. Please ask your IT department.'),
  taken: () => new SsoError(409, 'sso_email_taken', 'An account with this e-mail address already exists. Please log in with your password.'),
} as const;

/** What the issuer vouched for, once every check passed. */
export interface SsoClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** Every claim of the ID token, for a configured claim to be read. */
  all: Record<string, unknown>;
}

/** The flow a browser started, kept in its cookie. */
interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /** When the flow started (ms); it must end within FLOW_TTL_MS. */
  at: number;
  redirectTo: string | null;
}

export const FLOW_COOKIE = 'baret_sso';
export const FLOW_TTL_MS = 10 * 60_000;

/** An error and its causes, as far as they go, with what tells them apart. */
function causes(error: unknown): Array<{ message: string; code?: string; claim?: string; name?: string; error?: string }> {
  const out: Array<{ message: string; code?: string; claim?: string; name?: string; error?: string }> = [];
  let e: unknown = error;
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e === 'object') {
      const o = e as { message?: unknown; code?: unknown; cause?: unknown; name?: unknown; error?: unknown };
      const cause = o.cause as { claim?: unknown } | undefined;
      out.push({
        message: typeof o.message === 'string' ? o.message : '',
        ...(typeof o.code === 'string' ? { code: o.code } : {}),
        ...(cause && typeof cause === 'object' && typeof cause.claim === 'string' ? { claim: cause.claim } : {}),
        ...(typeof o.name === 'string' ? { name: o.name } : {}),
        ...(typeof o.error === 'string' ? { error: o.error } : {}),
      });
      e = o.cause;
    } else break;
  }
  return out;
}

/** The user-facing reason for an error of openid-client (or oauth4webapi beneath it). */
export function classify(error: unknown): SsoError {
  if (error instanceof SsoError) return error;
  const chain = causes(error);
  const has = (p: (c: (typeof chain)[number]) => boolean) => chain.some(p);
  if (has((c) => c.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED' && (c.claim === 'exp' || /expiration/.test(c.message)))) return SSO_ERRORS.expired();
  if (has((c) => c.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' && (c.claim === 'aud' || c.claim === 'azp'))) return SSO_ERRORS.audience();
  if (has((c) => /signature verification failed/i.test(c.message) || c.code === 'OAUTH_KEY_SELECTION_FAILED')) return SSO_ERRORS.signature();
  if (has((c) => c.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR')) return SSO_ERRORS.denied();
  if (has((c) => c.code === 'OAUTH_RESPONSE_BODY_ERROR' && c.error === 'invalid_grant')) return SSO_ERRORS.code();
  // Any other refusal of the token endpoint (invalid_client: a wrong secret) is the server's setup, not the person's.
  if (has((c) => c.code === 'OAUTH_RESPONSE_BODY_ERROR')) return SSO_ERRORS.unavailable();
  if (has((c) => c.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' || c.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED' || c.code === 'OAUTH_PARSE_ERROR')) return SSO_ERRORS.token();
  if (has((c) => /"state"/.test(c.message))) return SSO_ERRORS.flow();
  if (has((c) => c.name === 'TypeError' && /fetch failed/i.test(c.message)) || has((c) => c.name === 'TimeoutError' || c.name === 'AbortError')) return SSO_ERRORS.unavailable();
  if (has((c) => c.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || c.code === 'OAUTH_RESPONSE_IS_NOT_JSON')) return SSO_ERRORS.unavailable();
  return SSO_ERRORS.token();
}

/** The flow, encrypted and authenticated for the browser's cookie. */
function seal(key: Buffer, flow: Flow): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flow), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The flow a cookie holds; an SsoError when it is missing, altered or older than FLOW_TTL_MS. */
function open(key: Buffer, cookie: string | undefined, clock: () => Date): Flow {
  if (!cookie) throw SSO_ERRORS.flow();
  try {
    const raw = Buffer.from(cookie, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const flow = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Flow;
    const age = clock().getTime() - flow.at;
    if (age < 0 || age > FLOW_TTL_MS) throw SSO_ERRORS.flow();
    return flow;
  } catch {
    throw SSO_ERRORS.flow();
  }
}

export function createOidc(settings: OidcSettings, secret: string, clock: () => Date) {
  const key = Buffer.from(hkdfSync('sha256', secret, 'baret-sso', 'oidc-flow-cookie', 32));
  const insecure = settings.issuer.startsWith('http://');
  let discovered: Promise<oidc.ServerMetadata> | null = null;
  let jwks: oidc.ExportedJWKSCache | undefined;

  /** The issuer's metadata, discovered once (again after a failure). */
  function metadata(): Promise<oidc.ServerMetadata> {
    discovered ??= oidc
      .discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, {
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 10,
      })
      .then((config) => config.serverMetadata())
      .catch((e: unknown) => {
        discovered = null;
        throw e;
      });
    return discovered;
  }

  /**
   * A client configuration whose clock is Baret's (a moved clock in tests is the clock the token's
   * expiry is judged by), checking ID token signatures against the issuer's keys.
   */
  async function configuration(): Promise<oidc.Configuration> {
    const skew = Math.round((clock().getTime() - Date.now()) / 1000);
    const config = new oidc.Configuration(await metadata(), settings.clientId, { client_secret: settings.clientSecret, [oidc.clockSkew]: skew }, oidc.ClientSecretPost(settings.clientSecret));
    if (insecure) oidc.allowInsecureRequests(config);
    oidc.enableNonRepudiationChecks(config);
    if (jwks) oidc.setJwksCache(config, jwks);
    config.timeout = 15;
    return config;
  }

  return {
    settings,
    /** Where to send the browser to sign in, and the cookie that remembers the flow. */
    async start(redirectTo: string | null): Promise<{ url: string; cookie: string }> {
      let config: oidc.Configuration;
      try {
        config = await configuration();
      } catch {
        throw SSO_ERRORS.unavailable();
      }
      const flow: Flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), at: clock().getTime(), redirectTo };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUrl,
        scope: settings.scopes,
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, cookie: seal(key, flow) };
    },

    /**
     * Finishes the flow the cookie remembers with what the issuer sent back to the redirect page
     * (`code` and `state`, or `error`): exchanges the code (with the PKCE verifier) and checks the
     * ID token. Throws an SsoError saying what was wrong.
     */
    async finish(cookie: string | undefined, params: Record<string, string>): Promise<{ claims: SsoClaims; redirectTo: string | null }> {
      const flow = open(key, cookie, clock);
      const back = new URL(settings.redirectUrl);
      for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
      let claims: oidc.IDToken | undefined;
      try {
        const config = await configuration();
        const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true });
        jwks = oidc.getJwksCache(config) ?? jwks;
        claims = tokens.claims();
      } catch (e) {
        throw classify(e);
      }
      if (!claims) throw SSO_ERRORS.token();
      const email = typeof claims.email === 'string' ? claims.email.trim() : null;
      const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 120) : null;
      return {
        claims: { issuer: claims.iss, subject: claims.sub, email, emailVerified: claims.email_verified === true, name, all: { ...claims } },
        redirectTo: flow.redirectTo,
      };
    },
  };
}

export type Oidc = ReturnType<typeof createOidc>;
