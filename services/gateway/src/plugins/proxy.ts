import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { SERVICE_HEADER, sendProblem, type ServiceClient, ServiceCredentialSigner, traceHeaders, type PublicRoute, type ServiceManifest } from '@baret/platform';

export interface UpstreamRoutes extends ServiceManifest {
  url: string;
}

const UNREACHABLE = 'A part of Baret is not reachable right now. Please try again in a moment.';

/**
 * Asks every service for its public routes (`GET /internal/routes`), waiting for services that are
 * still starting (up to `waitMs`): the gateway cannot add routes once it listens.
 */
export async function fetchManifests(services: readonly ServiceClient[], log: Logger, waitMs = 300_000): Promise<UpstreamRoutes[]> {
  const deadline = Date.now() + waitMs;
  return Promise.all(
    services.map(async (client) => {
      for (;;) {
        try {
          const manifest = (await client.call<ServiceManifest>('GET', '/internal/routes', undefined, { attempts: 1, timeoutMs: 5_000 }))!;
          log.info({ service: client.service, routes: manifest.routes.length }, 'routes of a service learned');
          return { ...manifest, url: client.baseUrl };
        } catch (e) {
          if (Date.now() > deadline) throw e;
          log.warn({ service: client.service, err: e instanceof Error ? e.message : String(e) }, 'waiting for a service');
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    }),
  );
}

/** Hop-by-hop and credential headers that never go upstream as the client sent them. */
const STRIPPED = ['authorization', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'traceparent', 'tracestate', SERVICE_HEADER];

/**
 * The public API of the distributed run: every public route of every service, registered here with
 * its schema (so /openapi.json is the same as in the embedded run) but without validation or body
 * parsing — bodies stream through, and the service validates, answers and words its errors itself.
 * The principal the gateway authenticated and the client's address travel in the service credential.
 */
export const proxyPlugin = fp<{ upstreams: UpstreamRoutes[]; secret: string }>(
  async (app: FastifyInstance, opts) => {
    await app.register(replyFrom, {
      // Uploads of large videos: the service answers once it has the whole file.
      undici: { headersTimeout: 30 * 60_000, bodyTimeout: 5 * 60_000, connections: 128 },
      disableRequestLogging: true,
    });
    // One credential per principal and client address, signed again when half its minute is gone.
    const credentials = new ServiceCredentialSigner(opts.secret);
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      const forward = (base: string) => (request: FastifyRequest, reply: FastifyReply) =>
        reply.from(new URL(request.url, base).toString(), {
          rewriteRequestHeaders: (_raw, headers) => {
            const out: Record<string, string | string[] | undefined> = { ...headers };
            for (const name of STRIPPED) delete out[name];
            out[SERVICE_HEADER] = credentials.sign({ iss: 'gateway', ip: request.ip, ...(request.principal ? { principal: request.principal } : {}) });
            out['x-forwarded-for'] = request.ip;
            out['x-forwarded-proto'] = request.protocol;
            // The address the client used, for links a service writes (the CSV's job links).
            if (request.headers.host) out['x-forwarded-host'] = request.headers.host;
            out['x-request-id'] = request.id;
            // The service's span continues the gateway's request span (docs/adr/0014).
            Object.assign(out, traceHeaders());
            return out;
          },
          rewriteHeaders: (headers) => {
            const { 'x-request-id': _id, ...rest } = headers;
            return rest;
          },
          onError: (r, { error }) => {
            r.request.log.warn({ err: error }, 'upstream service failed');
            void sendProblem(r as unknown as FastifyReply, { status: 503, code: 'service_unavailable', detail: UNREACHABLE });
          },
        });
      for (const upstream of opts.upstreams) {
        const gets = new Set(upstream.routes.filter((r) => r.method === 'GET').map((r) => r.url));
        for (const route of upstream.routes) {
          if (route.method === 'HEAD' && gets.has(route.url)) continue; // Fastify adds HEAD to every GET
          scope.route({
            method: route.method as PublicRoute['method'] & 'GET',
            url: route.url,
            schema: route.schema,
            config: route.rateLimit === false ? { rateLimit: false } : route.principalLimit ? { principalLimit: route.principalLimit } : {},
            validatorCompiler: () => () => true,
            handler: forward(upstream.url),
          });
        }
      }
    });
  },
  { name: 'baret-proxy' },
);
