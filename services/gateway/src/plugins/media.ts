import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sendProblem } from '@baret/platform';

/** The landing page's demo video, in the media folder (served at /media/demo.mov). */
export const DEMO_VIDEO = 'demo.mov';

/** The demo video's path when an operator has put it in the media folder, else null. */
export function demoVideoPath(mediaDir: string | undefined): string | null {
  return mediaDir && existsSync(join(mediaDir, DEMO_VIDEO)) ? `/media/${DEMO_VIDEO}` : null;
}

/**
 * Whether a request's path is under /media once decoded and steps out of a folder: a `.` or `..`
 * segment, plain or behind percent-encoded dots, slashes or backslashes (decoded up to three
 * times). Such a path is refused before any route: never a file, never the web app's page.
 */
export function climbsOutOfMedia(url: string): boolean {
  const forms = [url.split('?')[0] ?? ''];
  for (let i = 0; i < 3 && forms.at(-1)!.includes('%'); i++) {
    try {
      forms.push(decodeURIComponent(forms.at(-1)!));
    } catch {
      break;
    }
  }
  if (!/^\/+media(?:[/\\]|$)/i.test(forms.at(-1)!)) return false;
  return forms.some((form) => form.split(/[/\\]/).some((segment) => segment === '.' || segment === '..'));
}

/**
 * Public media of the landing page under /media (the demo video `/media/demo.mov`), served from
 * a folder an operator fills; a missing file is a 404, and the web app then disables the demo.
 *
 * `GET /media/demo.json` says whether the demo video is there now (`{ video: "/media/demo.mov" }`
 * or `{ video: null }`), never cached: an installed web app opens its index.html from the service
 * worker's cache, so the `baret-demo-video` tag in it is as old as the app version, and it asks here
 * instead (the service worker does not cache this request either).
 */
export const mediaPlugin = fp<{ root: string }>(
  async (app: FastifyInstance, opts) => {
    mkdirSync(opts.root, { recursive: true });
    // Every request, matched or not (so neither the static files nor the web app's page answer it).
    app.addHook('onRequest', async (request, reply) => {
      if (climbsOutOfMedia(request.raw.url ?? '')) {
        return sendProblem(reply, { status: 400, code: 'bad_path', detail: 'This address leads out of the media folder.' });
      }
    });
    app.get('/media/demo.json', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'no-cache').send({ video: demoVideoPath(opts.root) }),
    );
    await app.register(fastifyStatic, {
      root: opts.root,
      prefix: '/media/',
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      setHeaders: (res) => {
        res.header('cache-control', 'public, max-age=3600');
      },
    });
  },
  { name: 'baret-media' },
);
