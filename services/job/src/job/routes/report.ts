import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ForbiddenError, IdParams, NO_ORG_TIME_ZONE, planHasReports, preferredLang, principalOf, problems } from '@baret/platform';
import { renderJobReport } from '../../report/pdf.js';
import { auditAccess } from './auditAccess.js';
import type { JobRoutesDeps } from './deps.js';
import { jobItem, presentResult } from './present.js';
import { bearer } from './schemas.js';

/** The job's report as a PDF (Pro and Enterprise plans). */
export const reportRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/jobs/:id/report.pdf',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['jobs'],
          summary: 'The job’s report as a PDF, in Turkish or English (owner or admin; Pro and Enterprise plans)',
          description:
            'Job, organisation, date, video name, job type, required / worn / missing / not checked equipment, violations with their evidence crops, the job’s timeline, evidence frames, duration, model, cost and a reviewer’s sign-off; dates and times in the organisation’s time zone, named (UTC for a personal job).',
          security: bearer,
          params: IdParams,
          querystring: Type.Object({ lang: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])) }),
          produces: ['application/pdf'],
          response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'PDF document' }), ...problems(400, 401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        if (!principal.isAdmin && !planHasReports(await deps.planOf(principal))) {
          throw new ForbiddenError('The PDF report is available on the Pro and Enterprise plans.');
        }
        const lang = request.query.lang ?? preferredLang(request.headers['accept-language']);
        await auditAccess(deps, request, principal, job, 'job.downloaded_pdf', { lang });
        // Images the result points to (evidence frames, violation crops) are read through this
        // service's own routes, as the caller: the same authorization, wherever they are stored.
        const { host: _host, 'content-length': _length, accept: _accept, ...headers } = request.headers;
        const image = async (url: string): Promise<Buffer | null> => {
          if (!url.startsWith(`/jobs/${job.id}/`)) return null;
          const res = await app.inject({ method: 'GET', url, headers: { ...headers, accept: 'image/*' } });
          return res.statusCode === 200 && /^image\/(jpeg|png)/.test(String(res.headers['content-type'])) ? res.rawPayload : null;
        };
        // The organisation the job was recorded in names the report and its time zone; a personal job's is UTC (issue 54).
        const org = job.org_id ? await deps.orgProfile(job.org_id) : null;
        const pdf = await renderJobReport({
          job: { ...(await jobItem(deps, job, lang)), org_id: job.org_id ?? null, org_name: org?.name ?? null, logs: job.logs, result: presentResult(job, lang) },
          lang,
          image,
          now: deps.clock?.() ?? new Date(),
          timeZone: org?.time_zone ?? NO_ORG_TIME_ZONE,
        });
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="baret-job-${job.id}-${lang}.pdf"`)
          .header('cache-control', 'private, no-store')
          .send(pdf);
      },
    );
  };
