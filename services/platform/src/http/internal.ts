import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { OrgSummary, PersonalDataSource, QuotaClient, QuotaView, ReservationOutcome, TaskCatalogClient, UserDirectory, UserSummary } from '../clients.js';
import { UnauthorizedError } from '../errors.js';
import type { AuthResolvers, Principal } from './auth.js';
import { SERVICE_HEADER, ServiceCredentialSigner } from './serviceToken.js';
import { SpanKind, traceHeaders, withSpan } from '../telemetry.js';

/** API keys are told from JWTs by this prefix (identity issues them). */
export const API_KEY_PREFIX = 'baret_';

/** The internal routes of the distributed run live under this prefix; never proxied to the public. */
export const INTERNAL_PREFIX = '/internal';

/** A call to another service that did not answer as agreed: a 5xx at the edge, never a wrong answer. */
export class ServiceCallError extends Error {
  constructor(
    readonly service: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceCallError';
  }

  /** Not reached, or answered "not available now" (the service's own dependency is down): a 503 at the edge. */
  get unavailable(): boolean {
    return this.status === null || this.status === 502 || this.status === 503 || this.status === 504;
  }
}

interface CallOptions {
  /** A 404 answers null instead of failing. */
  allow404?: boolean;
  /** Tries when the service cannot be reached (refused); default 3. A 503 is answered at once. */
  attempts?: number;
  /** This call's deadline, instead of the client's. */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls one service's internal routes with a service credential (docs/adr/0011). A refused
 * connection (the service restarting) is tried again a few times; every call has a deadline.
 */
export class ServiceClient {
  constructor(
    readonly service: string,
    readonly baseUrl: string,
    secret: string,
    private readonly caller: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.credentials = new ServiceCredentialSigner(secret);
  }

  private readonly credentials: ServiceCredentialSigner;

  /** The JSON body of a 2xx answer; `null` for a 404 when `allow404`. One client span, its context sent along. */
  call<T>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<T | null> {
    const route = path.split('?')[0]!.replace(/\/[^/]*[0-9@%][^/]*/g, '/:id');
    return withSpan(
      `${method} ${this.service}${route}`,
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'server.address': this.service, 'url.path': path.split('?')[0] } },
      () => this.send<T>(method, path, body, opts),
    );
  }

  private async send<T>(method: string, path: string, body: unknown, opts: CallOptions): Promise<T | null> {
    const attempts = opts.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(new URL(path, this.baseUrl), {
          method,
          headers: {
            [SERVICE_HEADER]: this.credentials.sign({ iss: this.caller }),
            ...traceHeaders(),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs),
        });
      } catch (e) {
        // Refused: the service is restarting. Tried again briefly (100 ms, 200 ms, …).
        if (attempt < attempts && !(e instanceof Error && e.name === 'TimeoutError')) {
          await sleep(100 * 2 ** (attempt - 1));
          continue;
        }
        throw new ServiceCallError(this.service, null, `${this.service} is not reachable: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (res.status === 404 && opts.allow404) {
        await res.body?.cancel();
        return null;
      }
      // A 503 comes from a service that is up but whose own engine is down: said at once (the
      // client gets its 503 with Retry-After within a second), not waited on here.
      if (!res.ok) {
        const text = await res.text().catch(() => '');
        throw new ServiceCallError(this.service, res.status, `${this.service} answered ${res.status} to ${method} ${path}: ${text.slice(0, 200)}`);
      }
      if (res.status === 204) return null;
      return (await res.json()) as T;
    }
  }
}

const enc = encodeURIComponent;

/** The quota service, asked over HTTP. */
export function httpQuotaClient(c: ServiceClient): QuotaClient {
  return {
    getQuota: async (userId) => (await c.call<QuotaView>('GET', `/internal/quota/${enc(userId)}`))!,
    // An account's reservations are taken one at a time (in order, so none is lost): twenty
    // submissions at once on a busy machine queue for longer than the default deadline, and a
    // reservation given up on may still be stored. The submission waits longer (it is an upload,
    // long anyway); a quota service that is down is still said at once (refused, or its 503).
    reserve: async (userId, jobId) => (await c.call<ReservationOutcome>('PUT', `/internal/quota/${enc(userId)}/jobs/${enc(jobId)}`, undefined, { timeoutMs: 30_000 }))!,
    release: async (userId, jobId, reason) => {
      await c.call('DELETE', `/internal/quota/${enc(userId)}/jobs/${enc(jobId)}?reason=${enc(reason)}`);
    },
  };
}

/** The identity service's user directory, asked over HTTP. */
export function httpUserDirectory(c: ServiceClient): UserDirectory {
  return {
    getUsers: async (ids) => (ids.length === 0 ? [] : (await c.call<UserSummary[]>('POST', '/internal/users/lookup', { ids }))!),
    listUsers: async () => (await c.call<UserSummary[]>('GET', '/internal/users'))!,
    listOrgs: async () => (await c.call<OrgSummary[]>('GET', '/internal/orgs'))!,
  };
}

type PrincipalView = Omit<Principal, 'via'>;

/** Who a token belongs to, asked of the identity service (the gateway verifies JWT signatures itself). */
export function httpAuthResolvers(c: ServiceClient): AuthResolvers {
  return {
    isApiKey: (token) => token.startsWith(API_KEY_PREFIX),
    userById: (id) => c.call<PrincipalView>('GET', `/internal/principals/${enc(id)}`, undefined, { allow404: true }),
    userByApiKey: (token) => c.call<PrincipalView>('POST', '/internal/principals/by-api-key', { token }, { allow404: true }),
  };
}

/** The analysis service's task catalogue, asked over HTTP. */
/** Another service's part of a person's export (issue 30): `GET /internal/personal-data/{userId}` of that service. */
export function httpPersonalDataSource(c: ServiceClient, file: string): PersonalDataSource {
  return { file, collect: async (principal) => c.call('GET', `/internal/personal-data/${enc(principal.userId)}`, undefined, { allow404: true }) };
}

export function httpTaskCatalog(c: ServiceClient): TaskCatalogClient {
  return { isTask: async (slug) => (await c.call('GET', `/internal/tasks/${enc(slug)}`, undefined, { allow404: true })) !== null };
}

/**
 * Mounts a service's internal routes under /internal: only another Baret service (a request with
 * a valid service credential that names no end user) may call them.
 */
export function internalRoutes(routes: FastifyPluginAsync): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    await app.register(
      async (scope) => {
        scope.addHook('onRequest', async (request: FastifyRequest) => {
          if (!request.caller || request.principal) throw new UnauthorizedError('This service answers only through the Baret gateway.');
        });
        await scope.register(routes);
      },
      { prefix: INTERNAL_PREFIX },
    );
  };
}
