import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import { authPlugin, createHttpApp, csv, healthPlugin, limitsPlugin, notFoundProblem, rateLimitError, type RouteLimit } from '@baret/platform';
import { mediaPlugin } from './plugins/media.js';
import { webPlugin } from './plugins/web.js';
import { proxyPlugin } from './plugins/proxy.js';
import type { GatewayOptions } from './types.js';

/**
 * The public REST edge, assembled from plugins: problem+json errors, security headers, CORS,
 * rate limits, authentication, health, OpenAPI, the services' routes and the web app.
 * It does not listen; server.ts does.
 */
/** Tags by name, first description kept (several services describe "admin"). */
const uniqueTags = (tags: Array<{ name: string; description: string }>) => [...new Map(tags.reverse().map((t) => [t.name, t])).values()].reverse();

export async function buildGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = await createHttpApp(config, opts.logger);
  // Security headers (helmet), its middleware built once: @fastify/helmet builds it again for every
  // request (the CSP directives parsed each time), a cost on the path of every API call (issue 27).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        manifestSrc: ["'self'"],
        // On-prem installs are often plain HTTP on a LAN: never force https sub-requests.
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // HSTS only over HTTPS (below): on plain HTTP it means nothing, and on-prem installs often are.
    strictTransportSecurity: false,
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)));
  // request.protocol is "https" on a TLS socket, or behind a trusted proxy (TRUST_PROXY) that says
  // X-Forwarded-Proto: https.
  app.addHook('onSend', async (request, reply) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
  });
  const origins = csv(config.CORS_ORIGINS);
  await app.register(cors, {
    origin: origins.length > 0 ? origins : false,
    credentials: false,
    exposedHeaders: ['x-request-id', 'retry-after'],
  });
  // The counters; the per-route limits of anonymous routes (register, login, contact) are its own,
  // the general and per-user limits are limitsPlugin's, once the caller is known (below).
  await app.register(rateLimit, { global: false, errorResponseBuilder: rateLimitError });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Baret API',
        description:
          'Checks personal protective equipment in videos of electrical field work.\n\n' +
          `Rate limits: every request counts against its user's (login token) or API key's allowance of ${config.RATE_LIMIT_PER_MINUTE} a minute ` +
          `(its address's, without a credential), and against a flood guard of ${config.RATE_LIMIT_PER_ADDRESS_PER_MINUTE ?? 10 * config.RATE_LIMIT_PER_MINUTE} a minute per client address; ` +
          'some routes have their own limit per user or API key on top, said in their description. A refusal is a 429 problem (`code: too_many_requests`) ' +
          'with `Retry-After` in seconds, worded in the language of `Accept-Language`.',
        version: opts.version ?? '0.0.0',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'A JWT access token from /auth/login, or an API key' },
        },
      },
      tags: uniqueTags([
        { name: 'health', description: 'Liveness and readiness' },
        ...opts.modules.flatMap((m) => m.tags ?? []),
        ...(opts.proxy?.upstreams.flatMap((u) => u.tags) ?? []),
      ]),
    },
    // A route's own limit (config.principalLimit) is said in its description.
    transform: ({ schema, url, route }) => {
      const own = (route.config as { principalLimit?: RouteLimit } | undefined)?.principalLimit;
      if (!own || !schema) return { schema, url };
      const limit = `Limited to ${own.max} per ${own.timeWindow.replace(/^1 /, '')} per user or API key (429 with Retry-After above it).`;
      return { schema: { ...schema, description: schema.description ? `${schema.description} ${limit}` : limit }, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());

  await app.register(authPlugin, {
    secret: config.JWT_SECRET,
    previousSecret: config.JWT_PREVIOUS_SECRET,
    expiresIn: config.JWT_EXPIRES_IN,
    resolvers: opts.auth,
    ...(opts.verifier ? { verifier: opts.verifier } : {}),
  });
  await app.register(limitsPlugin, {
    perMinute: config.RATE_LIMIT_PER_MINUTE,
    perAddressPerMinute: config.RATE_LIMIT_PER_ADDRESS_PER_MINUTE ?? 10 * config.RATE_LIMIT_PER_MINUTE,
  });
  await app.register(healthPlugin, { ready: () => opts.infra.ready(), version: opts.version ?? '0.0.0' });
  for (const module of opts.modules) if (module.routes) await app.register(module.routes);
  if (opts.proxy) await app.register(proxyPlugin, opts.proxy);

  if (opts.mediaDir) await app.register(mediaPlugin, { root: opts.mediaDir });
  if (opts.webDir) await app.register(webPlugin, { root: opts.webDir, mediaDir: opts.mediaDir });
  else app.setNotFoundHandler(notFoundProblem);

  return app;
}
