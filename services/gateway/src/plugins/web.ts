import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { notFoundProblem } from '@baret/platform';

/** API prefixes: an unknown path under them is a 404 problem, never the web app. */
// `/contact` is both a page (GET) and an API route (POST): a page load gets the app.
const API_PREFIXES = ['/internal', '/metrics', '/auth', '/admin', '/jobs', '/analyze', '/tasks', '/usage', '/docs', '/openapi', '/media', '/uploads'];

/**
 * Serves the built PWA. Any other GET that accepts HTML gets index.html, so client-side routes
 * (/dashboard/history …) load on refresh.
 */
export const webPlugin = fp<{ root: string }>(
  async (app: FastifyInstance, opts) => {
    if (!existsSync(join(opts.root, 'index.html'))) {
      app.log.warn({ root: opts.root }, 'web app is not built; serving the API only');
      app.setNotFoundHandler(notFoundProblem);
      return;
    }
    await app.register(fastifyStatic, {
      root: opts.root,
      wildcard: false,
      index: false,
      setHeaders: (res, path) => {
        const immutable = path.includes(`${join(opts.root, 'assets')}`);
        res.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      // A browser asks for HTML; a client that says nothing particular (curl, a health probe
      // of the front page: no Accept or */*) gets the app too. API paths never do.
      const accept = request.headers.accept ?? '';
      const wantsHtml = accept.includes('text/html') || accept.trim() === '' || accept.includes('*/*');
      const isApi = API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
      if (request.method === 'GET' && wantsHtml && !isApi) {
        return reply.header('cache-control', 'no-cache').sendFile('index.html');
      }
      return notFoundProblem(request, reply);
    });
  },
  { name: 'baret-web' },
);
