import type { FastifyInstance, FastifyRequest } from 'fastify';
import { metricsRegistry, httpRequestDuration } from '../metrics.js';
import { OPEN_PATHS } from './auth.js';
import { extractContext, otelContext, otelTrace, SpanKind, SpanStatusCode, tracer, type Span } from '../telemetry.js';


const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

/**
 * Observability of an HTTP server (docs/adr/0014): a server span per request, child of the
 * `traceparent` the caller sent (the gateway, another service), active for everything the request
 * does (hooks, handler, body stream, response); the latency histogram by route pattern, method and
 * status; and `GET /metrics`, open like /healthz, not rate limited, not in the OpenAPI document.
 */
export function observe(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '';
    // Probes and scrapes: measured, never traced (they would drown the traces).
    if (OPEN_PATHS.has(path)) return done();
    const parent = extractContext(request.headers);
    const route = routeOf(request);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': path, 'baret.request_id': request.id },
      },
      parent,
    );
    spans.set(request, span);
    const ctx = otelTrace.setSpan(parent, span);
    // Listeners of the request and response streams (body parsing, the response's end) run in it too.
    otelContext.bind(ctx, request.raw);
    otelContext.bind(ctx, reply.raw);
    otelContext.with(ctx, done);
  });

  const endSpan = (request: FastifyRequest, status: number | 'aborted') => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (status === 'aborted') span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away' });
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe({ method: request.method, route: routeOf(request), status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    endSpan(request, reply.statusCode);
  });
  app.addHook('onRequestAbort', async (request) => endSpan(request, 'aborted'));

  app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false }, logLevel: 'warn' }, async (_request, reply) => {
    const text = await metricsRegistry.metrics();
    return reply.type(metricsRegistry.contentType).send(text);
  });
}
