import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { authPlugin, csv, finiteNumbers, notFoundProblem, problemPlugin, sendProblem } from '@baret/platform';
import { healthPlugin } from './plugins/health.js';
import { tusPlugin } from './plugins/tus.js';
import { mediaPlugin } from './plugins/media.js';
import { webPlugin } from './plugins/web.js';
import type { GatewayOptions } from './types.js';

/**
 * The public REST edge, assembled from plugins: problem+json errors, security headers, CORS,
 * rate limits, authentication, health, OpenAPI, the services' routes and the web app.
 * It does not listen; server.ts does.
 */
/** Uploads (multipart /analyze, tus /uploads) may take long; only the idle timeout applies to them. */
const isUpload = (method: string, url: string): boolean =>
  (method === 'POST' && url.split('?')[0] === '/analyze') || url === '/uploads' || url.startsWith('/uploads/');

/**
 * A request other than an upload must arrive whole (headers and body) within `ms`; a client that
 * trickles its body byte by byte is cut off. The clock stops once the body is read.
 */
function bodyDeadline(app: FastifyInstance, ms: number): void {
  const timers = new WeakMap<object, NodeJS.Timeout>();
  const stop = (request: { raw: object }) => {
    clearTimeout(timers.get(request.raw));
    timers.delete(request.raw);
  };
  app.addHook('onRequest', async (request) => {
    if (isUpload(request.method, request.url)) return;
    const timer = setTimeout(() => {
      request.log.warn({ timeout_ms: ms }, 'request body too slow: connection closed');
      request.raw.socket.destroy();
    }, ms);
    timer.unref();
    timers.set(request.raw, timer);
  });
  app.addHook('preValidation', async (request) => stop(request));
  app.addHook('onResponse', async (request) => stop(request));
  app.addHook('onRequestAbort', async (request) => stop(request));
}

export async function buildGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    // A slow or stalled client never holds a connection for long: no bytes for HTTP_IDLE_TIMEOUT_MS
    // closes it (uploads too), headers must arrive within HTTP_HEADERS_TIMEOUT_MS, and a request
    // other than an upload must arrive whole within HTTP_BODY_TIMEOUT_MS (see bodyDeadline below).
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    // Errors the router raises before any route runs are problem+json like every other answer.
    frameworkErrors: (error, _request, reply) =>
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? sendProblem(reply, { status: 414, code: 'uri_too_long', detail: 'This address is too long.' })
        : error.code === 'FST_ERR_BAD_URL'
          ? sendProblem(reply, { status: 400, code: 'bad_url', detail: 'This address is not valid.' })
          : sendProblem(reply, { status: 500, code: 'internal_error', detail: 'Something went wrong on our side. Please try again later.' }),
    requestTimeout: 0,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true }, plugins: [(ajv) => (finiteNumbers(ajv), ajv)] },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  bodyDeadline(app, config.HTTP_BODY_TIMEOUT_MS);

  await app.register(problemPlugin);
  await app.register(helmet, {
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
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_PER_MINUTE,
    timeWindow: '1 minute',
    keyGenerator: (request) => request.principal?.userId ?? request.ip,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      code: 'too_many_requests',
      message:
        context.ttl > 120_000
          ? `Too many requests. Please wait ${Math.ceil(context.ttl / 60_000)} minutes and try again.`
          : `Too many requests. Please wait ${Math.ceil(context.ttl / 1000)} seconds and try again.`,
    }),
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Baret API',
        description: 'Checks personal protective equipment in videos of electrical field work.',
        version: opts.version ?? '0.0.0',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'A JWT access token from /auth/login, or an API key' },
        },
      },
      tags: [{ name: 'health', description: 'Liveness and readiness' }, ...opts.modules.flatMap((m) => m.tags ?? [])],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());

  await app.register(authPlugin, {
    secret: config.JWT_SECRET,
    expiresIn: config.JWT_EXPIRES_IN,
    resolvers: opts.auth,
  });
  await app.register(healthPlugin, { ready: () => opts.infra.ready(), version: opts.version ?? '0.0.0' });
  for (const module of opts.modules) if (module.routes) await app.register(module.routes);
  if (opts.uploads) await app.register(tusPlugin, { uploads: opts.uploads, maxBytes: config.UPLOAD_MAX_BYTES });

  if (opts.mediaDir) await app.register(mediaPlugin, { root: opts.mediaDir });
  if (opts.webDir) await app.register(webPlugin, { root: opts.webDir, mediaDir: opts.mediaDir });
  else app.setNotFoundHandler(notFoundProblem);

  return app;
}
