import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../errors.js';

/** A route's own limit, counted per user (login token) or per API key: `{ max: 30, timeWindow: '1 hour' }`. */
export interface RouteLimit {
  max: number;
  /** As @fastify/rate-limit reads it: '1 minute', '1 hour', … */
  timeWindow: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A limit of this route per user or API key, on top of the general ones. Declared by the
     * service, enforced at the gateway (in the distributed run, the gateway learns it from the
     * service's route list), so an over-limit upload is refused before its body goes anywhere.
     */
    principalLimit?: RouteLimit;
  }
}

/** The sentence of a 429; messages.ts words it in Turkish. */
export function tooManyRequestsMessage(ttlMs: number): string {
  return ttlMs > 120_000
    ? `Too many requests. Please wait ${Math.ceil(ttlMs / 60_000)} minutes and try again.`
    : `Too many requests. Please wait ${Math.max(1, Math.ceil(ttlMs / 1000))} seconds and try again.`;
}

/**
 * @fastify/rate-limit's answer for the per-route limits it enforces itself (register, login,
 * contact): a TooManyRequestsError, so the 429 is problem+json with `code`, `Retry-After` and the
 * client's language like every other error.
 */
export const rateLimitError = (_request: FastifyRequest, context: { ttl: number }): Error =>
  new TooManyRequestsError(tooManyRequestsMessage(context.ttl), { retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)) });

export interface LimitsOptions {
  /** Requests a minute per user (login token) or per API key; per address for requests without a credential. */
  perMinute: number;
  /** Every request of one client address, signed in or not: a coarse flood guard, well above what a crew behind one NAT sends. */
  perAddressPerMinute: number;
}

type Limiter = (request: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttl?: number; max?: number; remaining?: number }>;

/** Who a request is counted as: the user of a login token, the API key itself, or the address. */
function subjectOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return `addr:${request.ip}`;
  if (principal.via === 'api_key') {
    // The key, not its owner: each key of a crew (one per phone or system) has its own allowance.
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    return `key:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
  }
  return `user:${principal.userId}`;
}

/**
 * Rate limits of the public edge (the gateway, in both runs), checked once the caller is known
 * (after authentication) and before any body is read: every request against its address's flood
 * guard, then against its user's or API key's allowance (`perMinute`), then against the route's
 * own limit (`config.principalLimit`) for the same user or key. Routes with `config.rateLimit:
 * false` (health, metrics, the OpenAPI document) are never limited; paths no route serves (the
 * web app's page loads) only by the flood guard. An over-limit request is a
 * 429 problem (`too_many_requests`, `Retry-After`); the body of an upload refused this way is
 * read and dropped by the HTTP server, so the client receives the answer instead of a broken pipe.
 * Needs @fastify/rate-limit registered first (its counters and `createRateLimit`).
 */
export const limitsPlugin = fp<LimitsOptions>(
  async (app: FastifyInstance, opts) => {
    const create = (max: number, timeWindow: string, prefix: string): Limiter =>
      app.createRateLimit({ max, timeWindow, keyGenerator: (request: FastifyRequest) => `${prefix}|${subjectOf(request)}` }) as unknown as Limiter;
    const byAddress = app.createRateLimit({
      max: opts.perAddressPerMinute,
      timeWindow: '1 minute',
      keyGenerator: (request: FastifyRequest) => `flood|${request.ip}`,
    }) as unknown as Limiter;
    const bySubject = create(opts.perMinute, '1 minute', 'all');
    const byRoute = new Map<string, Limiter>();

    const check = async (request: FastifyRequest, limiter: Limiter) => {
      const result = await limiter(request);
      if (result.isAllowed || !result.isExceeded) return;
      const ttl = result.ttl ?? 60_000;
      throw new TooManyRequestsError(tooManyRequestsMessage(ttl), { retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) });
    };

    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config as { rateLimit?: unknown; principalLimit?: RouteLimit } | undefined;
      if (config?.rateLimit === false) return;
      await check(request, byAddress);
      // Paths no route serves (the web app's page loads, 404s) count only against the flood guard.
      if (request.is404) return;
      await check(request, bySubject);
      const own = config?.principalLimit;
      if (own) {
        const key = `${request.method} ${request.routeOptions.url ?? ''}`;
        let limiter = byRoute.get(key);
        if (!limiter) byRoute.set(key, (limiter = create(own.max, own.timeWindow, key)));
        await check(request, limiter);
      }
    });
  },
  { name: 'baret-limits', dependencies: ['@fastify/rate-limit', 'baret-auth'] },
);
