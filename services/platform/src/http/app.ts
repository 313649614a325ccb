import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { finiteNumbers } from './schemas.js';
import { observe } from './observability.js';
import { problemPlugin, sendProblem } from './problem.js';

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

export interface HttpAppOptions {
  /** Trust X-Forwarded-For from every peer: a service process reached only through the gateway. */
  trustAllProxies?: boolean;
  /**
   * Behind the gateway (a service process of the distributed run): the gateway already logs every
   * request at info with its request id, so this hop logs a request at info only when it failed
   * (5xx) or was slow (`SLOW_REQUEST_MS`); the others at debug.
   */
  behindGateway?: boolean;
}

/** A request answered later than this is logged at info by a service behind the gateway too. */
export const SLOW_REQUEST_MS = 1000;

const debugOn = (log: FastifyBaseLogger): boolean => (log as unknown as Logger).isLevelEnabled('debug');

const CLIENT = Symbol('baret.client');
type ArrivedRequest = FastifyRequest & { [CLIENT]?: string };

type LoggedRequest = FastifyRequest & { routeOptions?: { url?: string } };

/**
 * One log line per request and hop, written when the answer is sent (Fastify's default is two, one
 * on arrival and one on the answer): method, address, route, client, status, duration and the
 * request id. The arrival line is kept at debug.
 */
class RequestLog extends LogController {
  constructor(private readonly quietUnlessNotable: boolean) {
    super({ requestIdLogLabel: 'request_id' });
  }

  override incomingRequest(request: FastifyRequest): void {
    // The client's address, read while the socket is there (it may be gone once the answer is sent).
    (request as ArrivedRequest)[CLIENT] = request.ip;
    if (debugOn(request.log)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: LoggedRequest, reply: FastifyReply): void {
    const level = error ? 'error' : !this.quietUnlessNotable || reply.statusCode >= 500 || reply.elapsedTime >= SLOW_REQUEST_MS ? 'info' : debugOn(reply.log) ? 'debug' : null;
    // Most requests behind the gateway are logged at no level: nothing is built for them.
    if (level === null) return;
    // Plain values, not the request (Fastify's `req` serializer reads `ip` from the socket, gone by
    // now on a connection the client closed): the serializer makes `remoteAddress` of `ip`.
    const req = { method: request.method, url: request.url, host: request.host, ip: (request as ArrivedRequest)[CLIENT] };
    const fields = { req, route: request.routeOptions?.url, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log[level](fields, 'request completed');
  }
}

/**
 * The HTTP core every Baret server shares (the gateway, and each service process of the
 * distributed run): request ids, problem+json errors (router errors included), schema validation
 * that refuses non-finite numbers, and the timeouts that keep slow clients from holding
 * connections; a trace span and latency histogram per request, and `/metrics` (docs/adr/0014).
 */
export async function createHttpApp(
  config: Pick<Config, 'TRUST_PROXY' | 'HTTP_IDLE_TIMEOUT_MS' | 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_BODY_TIMEOUT_MS'>,
  logger: Logger,
  options: HttpAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    logController: new RequestLog(options.behindGateway === true),
    trustProxy: options.trustAllProxies ? true : config.TRUST_PROXY,
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
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  bodyDeadline(app, config.HTTP_BODY_TIMEOUT_MS);

  await app.register(problemPlugin);
  observe(app);
  return app;
}
