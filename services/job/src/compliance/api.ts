import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, ComplianceRowSchema, IdParams, preferredLang, principalOf, problems, type AuditRecorder, type Collection, type DocumentStore, type Filter } from '@baret/platform';
import { requireOrg } from '../orgAccess.js';
import { COMPLIANCE_DAYS, COMPLIANCE_PERIODS, type ComplianceDayDoc, type CompliancePeriodDoc } from '../readModels/compliance.js';
import type { JobDoc } from '../readModels/jobs.js';
import type { SitesCrews } from '../siteCrew/handlers.js';
import { jobsCsv } from './csv.js';
import { complianceDocs, complianceReport, GROUP_BY, INTERVALS, rangeOf } from './queries.js';

const bearer = [{ bearer: [] }];
const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const Id = IdParams.properties.id;
const DateParam = Type.String({ maxLength: 40, description: 'YYYY-MM-DD (a whole UTC day) or an ISO date-time' });
const Filters = {
  from: Type.Optional(DateParam),
  to: Type.Optional(DateParam),
  site_id: Type.Optional(Id),
  crew_id: Type.Optional(Id),
  job_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
};
const ComplianceSchema = Type.Object({
  from: Str,
  to: Str,
  by: Str,
  interval: Str,
  rows: Type.Array(ComplianceRowSchema),
  groups: Type.Record(Type.String(), Type.String(), { description: 'the equipment groups’ names in the language of Accept-Language' }),
  latest_violations: Type.Array(
    Type.Object({
      job_id: Str,
      created_at: Str,
      site_id: NullableStr,
      site_name: NullableStr,
      crew_id: NullableStr,
      crew_name: NullableStr,
      group: Str,
      group_name: Str,
      time_sec: Type.Number(),
      image_url: Type.String({ description: 'the worker’s crop: GET it with the bearer token' }),
    }),
  ),
});

export interface ComplianceRoutesDeps {
  sitesCrews: SitesCrews;
  documents: DocumentStore;
  jobs: Collection<JobDoc>;
  /** The audit log (issue 30): the CSV export is recorded. */
  audit: AuditRecorder;
  clock?: () => Date;
}

/** An organisation's compliance over time, and its jobs as CSV (managers). */
export const complianceRoutes =
  (deps: ComplianceRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    await instance.register(complianceReportRoutes(deps));
    await instance.register(jobsCsvRoutes(deps));
  };

/** Compliance over time, per site, crew or job type and per day, week or month. */
const complianceReportRoutes =
  (deps: ComplianceRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const clock = deps.clock ?? (() => new Date());
    const days = deps.documents.collection<ComplianceDayDoc>(COMPLIANCE_DAYS);
    const periods = deps.documents.collection<CompliancePeriodDoc>(COMPLIANCE_PERIODS);

    app.get(
      '/orgs/:id/compliance',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['compliance'],
          summary: 'Compliance over time: finished jobs, jobs with violations, workers seen and violations by equipment, per site, crew or job type and per day, week or month (managers)',
          description: 'Whole UTC days, from the day of `from` to the day before `to` (a date `to` includes its day); `from` defaults to twelve weeks before `to`, `to` to now. Counts only finished (done) jobs.',
          security: bearer,
          params: IdParams,
          querystring: Type.Object({
            ...Filters,
            by: Type.Union(GROUP_BY.map((g) => Type.Literal(g)), { default: 'site' }),
            interval: Type.Union(INTERVALS.map((i) => Type.Literal(i)), { default: 'week' }),
          }),
          response: { 200: ComplianceSchema, ...problems(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const orgId = request.params.id;
        requireOrg(principal, orgId, principal.isAdmin && principal.orgId !== orgId ? 'member' : 'manager');
        const q = request.query;
        const { from, to } = rangeOf(q, clock());
        const [siteNames, crewNames] = await Promise.all([deps.sitesCrews.names(orgId, 'site'), deps.sitesCrews.names(orgId, 'crew')]);
        return complianceReport(await complianceDocs(days, periods, { orgId, from, to, interval: q.interval }), {
          orgId,
          from,
          to,
          by: q.by,
          interval: q.interval,
          siteId: q.site_id,
          crewId: q.crew_id,
          jobType: q.job_type,
          lang: preferredLang(request.headers['accept-language']),
          siteNames,
          crewNames,
        });
      },
    );
  };

/** Every job of the organisation as CSV, one row per job. */
const jobsCsvRoutes =
  (deps: ComplianceRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const clock = deps.clock ?? (() => new Date());

    app.get(
      '/orgs/:id/jobs.csv',
      {
        preHandler: app.requireUser,
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['compliance'],
          summary: 'Every job of the organisation as CSV, one row per job (managers)',
          description:
            'UTF-8 with a byte order mark, so spreadsheets show Turkish letters. Columns: date, site, crew, work order, job type, status, violations per equipment group, link. ' +
            'In Turkish (`lang=tr` or Accept-Language) cells are separated by semicolons, as Turkish spreadsheets expect; in English by commas.',
          security: bearer,
          params: IdParams,
          querystring: Type.Object({ ...Filters, lang: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])) }),
          produces: ['text/csv'],
          response: { 200: Type.Unsafe<string>({ type: 'string', description: 'CSV document' }), ...problems(400, 401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const orgId = request.params.id;
        requireOrg(principal, orgId, principal.isAdmin && principal.orgId !== orgId ? 'member' : 'manager');
        const q = request.query;
        const lang = q.lang ?? preferredLang(request.headers['accept-language']);
        const { from, to } = rangeOf(q, clock());
        const where: Filter = { org_id: orgId, created_at: { $gte: from, $lt: to } };
        if (q.site_id) where.site_id = q.site_id;
        if (q.crew_id) where.crew_id = q.crew_id;
        const [siteNames, crewNames, rows] = await Promise.all([
          deps.sitesCrews.names(orgId, 'site'),
          deps.sitesCrews.names(orgId, 'crew'),
          deps.jobs.find({ where, orderBy: [{ field: 'created_at' }] }),
        ]);
        const jobs = rows.filter((j) => !q.job_type || (typeof j.result?.job_type === 'string' ? j.result.job_type : j.params.job_type) === q.job_type);
        const origin = `${request.protocol}://${request.host}`;
        const body = jobsCsv(jobs, { lang, origin, siteNames, crewNames });
        const source = auditSourceOf(request, principal.userId);
        await deps.audit.record({
          action: 'jobs.downloaded_csv',
          actorId: principal.userId,
          orgId,
          objectType: 'org',
          objectId: orgId,
          ip: source.ip,
          userAgent: source.userAgent,
          details: { rows: String(jobs.length), from: from.slice(0, 10), to: to.slice(0, 10) },
          key: source.key ?? `${principal.userId}\n${orgId}\n${request.url}\n${clock().toISOString().slice(0, 16)}`,
        });
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="baret-jobs-${from.slice(0, 10)}-${to.slice(0, 10)}.csv"`)
          .header('cache-control', 'private, no-store')
          .send(body);
      },
    );
  };
