import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DomainError, ForbiddenError, UnauthorizedError } from '../errors.js';
import { accessTokenKeys, AccessTokenVerifier, InvalidTokenError, type Jwks, type TokenClaims } from './accessTokens.js';
import type { Principal } from './principal.js';
import { SERVICE_HEADER, ServiceCredentialVerifier } from './serviceToken.js';

export type { OrgRole, Principal } from './principal.js';

export interface AuthResolvers {
  /** The current state of a user named by a valid JWT; null when the user no longer exists. */
  userById(userId: string): Promise<Omit<Principal, 'via'> | null>;
  /** The owner of an API key; null when the key is unknown or deleted. Updates last_used_at. */
  userByApiKey(token: string): Promise<Omit<Principal, 'via'> | null>;
  /** Tells API keys from JWTs by their shape. */
  isApiKey(token: string): boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The Baret service that sent this request (distributed mode); null at the public edge. */
    caller: string | null;
  }
  interface FastifyInstance {
    /** preHandler: 401 unless a valid credential was sent. */
    requireUser: (request: FastifyRequest) => Promise<void>;
    /** preHandler: 401 without a credential, 403 unless the user is an admin now. */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
    /**
     * preHandler: 401 without a credential, 403 `login_required` for an API key. Managing credentials
     * (API keys) needs a login: a key must not mint keys that outlive it.
     */
    requireLogin: (request: FastifyRequest) => Promise<void>;
    signAccessToken: (userId: string, sessionVersion?: number) => string;
    /** Lifetime of an access token in seconds. */
    accessTokenTtl: number;
    /** The public keys of the access tokens this process signs (identity publishes them). */
    accessTokenJwks: Jwks;
  }
}

export interface AuthPluginOptions {
  /** Signs access tokens (identity, the embedded run): the Ed25519 key is derived from it. */
  secret: string;
  /** During a rotation: the secret before `secret`; tokens it signed stay valid until they expire. */
  previousSecret?: string;
  expiresIn: string;
  /**
   * What verifies access tokens: one that follows identity's key set (the gateway of the
   * distributed run, which holds no signing secret). Default: the keys of `secret`.
   */
  verifier?: AccessTokenVerifier;
  /** At the public edge: who a bearer token or API key belongs to. */
  resolvers?: AuthResolvers;
  /**
   * Behind the gateway (a service process of the distributed run): every request must carry a
   * service credential signed with this secret, and the principal is the one it names; bearer
   * tokens are not read here, the gateway has checked them.
   */
  serviceSecret?: string;
}

/** Routes a probe or a scraper calls without any credential: never proxied, traced or credential-checked. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
/** "12h" → 43200. */
export const ttlSeconds = (expiresIn: string): number => {
  const m = /^(\d+)([smhd])$/.exec(expiresIn);
  if (!m) throw new Error(`invalid expiry ${expiresIn}`);
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
};

const UNAUTHENTICATED = 'Please log in to continue.';

/** An API key asked for what needs a login (issue 37). */
export class LoginRequiredError extends DomainError {
  readonly status = 403;
  readonly code = 'login_required';
}

/**
 * Authentication by JWT access token (EdDSA, docs/adr/0019) or API key (`Authorization: Bearer …`).
 * The user is looked up on every request (the distributed gateway caches the answer until identity
 * says the user changed), so a deleted user, a deleted key or a revoked admin right takes effect at
 * once.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app: FastifyInstance, opts) => {
    // One algorithm (EdDSA), pinned on both sides, and tokens must say when they expire: a token
    // signed another way, with another key, or without exp, is refused whatever its signature.
    const keys = accessTokenKeys(opts.secret, opts.previousSecret);
    const verifier = opts.verifier ?? new AccessTokenVerifier(() => keys.jwks);
    app.decorateRequest('principal', null);
    app.decorateRequest('caller', null);
    const ttl = ttlSeconds(opts.expiresIn);
    app.decorate('signAccessToken', (userId: string, sessionVersion = 0) => keys.sign(userId, ttl, sessionVersion));
    app.decorate('accessTokenTtl', ttl);
    app.decorate('accessTokenJwks', keys.jwks);

    const { serviceSecret, resolvers } = opts;
    if (serviceSecret) {
      const credentials = new ServiceCredentialVerifier(serviceSecret);
      app.addHook('onRequest', async (request: FastifyRequest) => {
        if (OPEN_PATHS.has(request.url.split('?')[0] ?? '')) return;
        const header = request.headers[SERVICE_HEADER];
        const claims = credentials.verify(typeof header === 'string' ? header : undefined);
        if (!claims) throw new UnauthorizedError('This service answers only through the Baret gateway.');
        request.caller = claims.iss;
        request.principal = claims.principal ?? null;
      });
    }
    if (resolvers) app.addHook('onRequest', async (request: FastifyRequest) => {
      const header = request.headers.authorization;
      if (!header) return;
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match?.[1]) throw new UnauthorizedError('The Authorization header must be "Bearer <token>".');
      const token = match[1];
      if (resolvers.isApiKey(token)) {
        const user = await resolvers.userByApiKey(token);
        if (!user) throw new UnauthorizedError('This API key is not valid.');
        request.principal = { ...user, via: 'api_key' };
        return;
      }
      let claims: TokenClaims;
      try {
        claims = await verifier.verify(token);
      } catch (e) {
        // A key set that cannot be fetched is not the client's fault (503 upstream), a bad token is.
        if (!(e instanceof InvalidTokenError)) throw e;
        throw new UnauthorizedError('Your session has expired or is not valid. Please log in again.');
      }
      const user = await resolvers.userById(claims.sub);
      // A token from before the user's last password reset ended with that reset.
      if (!user || (claims.sv ?? 0) !== (user.sessionVersion ?? 0)) throw new UnauthorizedError('Your session is no longer valid. Please log in again.');
      request.principal = { ...user, via: 'jwt', ...(typeof claims.iat === 'number' ? { authTime: claims.iat * 1000 } : {}) };
    });

    app.decorate('requireUser', async (request: FastifyRequest) => {
      if (!request.principal) throw new UnauthorizedError(UNAUTHENTICATED);
    });
    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      if (!request.principal) throw new UnauthorizedError(UNAUTHENTICATED);
      if (!request.principal.isAdmin) throw new ForbiddenError('You do not have admin rights.');
    });
    app.decorate('requireLogin', async (request: FastifyRequest) => {
      if (!request.principal) throw new UnauthorizedError(UNAUTHENTICATED);
      if (request.principal.via !== 'jwt') throw new LoginRequiredError('API keys cannot manage API keys. Please log in to create, list or delete them.');
    });
  },
  { name: 'baret-auth' },
);

/** The authenticated principal of a request that passed `requireUser`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError(UNAUTHENTICATED);
  return request.principal;
}
