import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendProblem } from './problem.js';

/** /healthz: the process is alive. /readyz: every store answers, so traffic may come. */
export const healthPlugin = fp<{ ready: () => Promise<void>; version: string }>(
  async (app: FastifyInstance, opts) => {
    app.get(
      '/healthz',
      {
        config: { rateLimit: false },
        schema: {
          tags: ['health'],
          summary: 'Liveness',
          response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
        },
      },
      async () => ({ status: 'ok' as const, version: opts.version }),
    );
    app.get(
      '/readyz',
      {
        config: { rateLimit: false },
        schema: {
          tags: ['health'],
          summary: 'Readiness: every store reachable',
          response: { 200: Type.Object({ status: Type.Literal('ready') }) },
        },
      },
      async (request, reply) => {
        try {
          await opts.ready();
          return { status: 'ready' as const };
        } catch (err) {
          request.log.warn({ err }, 'not ready');
          return sendProblem(reply, { status: 503, code: 'not_ready', detail: 'A store is not reachable yet.' });
        }
      },
    );
  },
  { name: 'baret-health' },
);
