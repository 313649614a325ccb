import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { IdParams, preferredLang, principalOf, problems } from '@baret/platform';
import { auditAccess } from './auditAccess.js';
import type { JobRoutesDeps } from './deps.js';
import { jobItem, presentResult } from './present.js';
import { bearer, JobDetailSchema } from './schemas.js';

const FINISHED = new Set(['done', 'error', 'cancelled']);

/** A job with its timeline and result, on its page and as a JSON file to keep. */
export const viewRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/jobs/:id',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'A job with its timeline and result, in the language of Accept-Language',
          security: bearer,
          params: IdParams,
          response: { 200: JobDetailSchema, ...problems(401, 404) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        // A finished job's result is a view for the audit log; the polls of a running one are not.
        if (FINISHED.has(job.status)) await auditAccess(deps, request, principal, job, 'job.viewed');
        return {
          // Where, by whom and for which work order it was recorded: what an auditor asks first.
          ...(await jobItem(deps, job, preferredLang(request.headers['accept-language']))),
          logs: job.logs,
          result: presentResult(job, preferredLang(request.headers['accept-language'])),
        };
      },
    );

    app.get(
      '/jobs/:id/result.json',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 60, timeWindow: '1 minute' } },
        schema: {
          tags: ['jobs'],
          summary: 'The job with its result as a JSON file to keep (the same body as GET /jobs/{id}), recorded in the audit log as a download',
          security: bearer,
          params: IdParams,
          response: { 200: JobDetailSchema, ...problems(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        await auditAccess(deps, request, principal, job, 'job.downloaded_json');
        const lang = preferredLang(request.headers['accept-language']);
        return reply
          .header('content-disposition', `attachment; filename="baret-job-${job.id}.json"`)
          .header('cache-control', 'private, no-store')
          .send({ ...(await jobItem(deps, job, lang)), logs: job.logs, result: presentResult(job, lang) });
      },
    );
  };
