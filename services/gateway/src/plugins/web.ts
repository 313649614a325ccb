import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { notFoundProblem } from '@baret/platform';
import { demoVideoPath } from './media.js';

/** API prefixes: an unknown path under them is a 404 problem, never the web app. */
// `/contact` is both a page (GET) and an API route (POST): a page load gets the app.
const API_PREFIXES = ['/internal', '/metrics', '/auth', '/admin', '/jobs', '/analyze', '/tasks', '/usage', '/docs', '/openapi', '/media', '/uploads', '/me'];

/** Long-lived for content-hashed files (a new build has new names), revalidated for everything else. */
export function cacheControlFor(filePath: string, root: string): string {
  return filePath.startsWith(join(root, 'assets') + sep) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/**
 * index.html as served: the built page with a `baret-demo-video` meta tag saying whether the demo
 * video is there (its path, or empty), so the landing page neither asks for nor fails on a video
 * that does not exist. Read again when the build changes. (An installed app's index.html comes
 * from its service worker's cache: it asks `/media/demo.json` instead, see the media plugin.)
 */
function indexPage(root: string, mediaDir: string | undefined) {
  const file = join(root, 'index.html');
  let cached: { mtimeMs: number; html: string } | null = null;
  return (): string => {
    const { mtimeMs } = statSync(file);
    if (!cached || cached.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(file, 'utf8') };
    const demo = demoVideoPath(mediaDir) ?? '';
    return cached.html.replace('</head>', `  <meta name="baret-demo-video" content="${demo}" />\n  </head>`);
  };
}

/**
 * Serves the built PWA: hashed assets precompressed (brotli, gzip, chosen by Accept-Encoding) and
 * cached for a year; index.html and the service worker revalidated on every load; no source maps.
 * Any other GET that accepts HTML gets index.html, so client-side routes (/dashboard/history …)
 * load on refresh.
 */
export const webPlugin = fp<{ root: string; mediaDir?: string }>(
  async (app: FastifyInstance, opts) => {
    if (!existsSync(join(opts.root, 'index.html'))) {
      app.log.warn({ root: opts.root }, 'web app is not built; serving the API only');
      app.setNotFoundHandler(notFoundProblem);
      return;
    }
    const page = indexPage(opts.root, opts.mediaDir);
    await app.register(fastifyStatic, {
      root: opts.root,
      wildcard: false,
      index: false,
      preCompressed: true,
      // index.html goes through the handler below (with the demo-video tag); source maps are never served.
      allowedPath: (pathName) => pathName !== '/index.html' && !pathName.endsWith('.map'),
      setHeaders: (res, path) => {
        res.header('cache-control', cacheControlFor(path, opts.root));
      },
    });
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      // A browser asks for HTML; a client that says nothing particular (curl, a health probe
      // of the front page: no Accept or */*) gets the app too. API paths and source maps never do.
      const accept = request.headers.accept ?? '';
      const wantsHtml = accept.includes('text/html') || accept.trim() === '' || accept.includes('*/*');
      const isApi = API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
      if (request.method === 'GET' && wantsHtml && !isApi && !path.endsWith('.map')) {
        return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page());
      }
      return notFoundProblem(request, reply);
    });
  },
  { name: 'baret-web' },
);
