import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { mkdirSync } from 'node:fs';

/**
 * Public media of the landing page under /media (the demo video `/media/demo.mov`), served from
 * a folder an operator fills; a missing file is a 404, and the web app then disables the demo.
 */
export const mediaPlugin = fp<{ root: string }>(
  async (app: FastifyInstance, opts) => {
    mkdirSync(opts.root, { recursive: true });
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
