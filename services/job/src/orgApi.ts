import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, ComplianceRowSchema, IdParams, preferredLang, principalOf, problems, type AuditRecorder, type Collection, type DocumentStore, type Filter, type Lang } from '@baret/platform';
import { complianceDocs, complianceReport, csvCell, GROUP_BY, INTERVALS, rangeOf } from './compliance.js';
import { COMPLIANCE_DAYS, COMPLIANCE_PERIODS, groupKey, type ComplianceDayDoc, type CompliancePeriodDoc } from './readModels/compliance.js';
import type { JobDoc } from './readModels/jobs.js';
import { CITY_MAX, UNIT_NAME_MAX } from './siteCrew/businessLogic.js';
import type { UnitKind } from './siteCrew/siteCrew.js';
import { requireOrg, type SitesCrews } from './sitesCrews.js';

const bearer = [{ bearer: [] }];
const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const UnitSchema = Type.Object({ id: Str, name: Str, city: NullableStr, archived: Type.Boolean(), created_at: Str });
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

const STATUS: Record<Lang, Record<string, string>> = {
  tr: { queued: 'Sırada', running: 'Çalışıyor', done: 'Tamamlandı', error: 'Hata', cancelled: 'İptal edildi' },
  en: { queued: 'Queued', running: 'Running', done: 'Done', error: 'Error', cancelled: 'Cancelled' },
};
const CSV_HEADERS: Record<Lang, string[]> = {
  tr: ['Tarih (UTC)', 'Saha', 'Ekip', 'İş emri', 'İş türü', 'Durum', 'Bağlantı'],
  en: ['Date (UTC)', 'Site', 'Crew', 'Work order', 'Job type', 'Status', 'Link'],
};
const VIOLATIONS_HEADER: Record<Lang, (group: string) => string> = { tr: (g) => `İhlal: ${g}`, en: (g) => `Violations: ${g}` };

interface Deps {
  sitesCrews: SitesCrews;
  documents: DocumentStore;
  jobs: Collection<JobDoc>;
  /** The audit log (issue 30): the CSV export is recorded. */
  audit: AuditRecorder;
  clock?: () => Date;
}

export const orgJobRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const clock = deps.clock ?? (() => new Date());
    const days = deps.documents.collection<ComplianceDayDoc>(COMPLIANCE_DAYS);
    const periods = deps.documents.collection<CompliancePeriodDoc>(COMPLIANCE_PERIODS);

    for (const kind of ['site', 'crew'] as const satisfies readonly UnitKind[]) {
      const plural = `${kind}s`;
      const Body =
        kind === 'site'
          ? Type.Object({ name: Type.String({ minLength: 1, maxLength: UNIT_NAME_MAX }), city: Type.Optional(Type.Union([Type.String({ maxLength: CITY_MAX }), Type.Null()])) }, { additionalProperties: false })
          : Type.Object({ name: Type.String({ minLength: 1, maxLength: UNIT_NAME_MAX }) }, { additionalProperties: false });
      app.post(
        `/orgs/:id/${plural}`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: kind === 'site' ? 'Add a site (where crews work) to your organisation (managers)' : 'Add a crew to your organisation (managers)',
            security: bearer,
            params: IdParams,
            body: Body,
            response: { 201: UnitSchema, ...problems(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          const body = request.body as { name: string; city?: string | null };
          return reply.code(201).send(await deps.sitesCrews.create(principalOf(request), request.params.id, kind, body));
        },
      );
      app.get(
        `/orgs/:id/${plural}`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: `Your organisation’s ${plural} by name (members); archived ones only with archived=true`,
            security: bearer,
            params: IdParams,
            querystring: Type.Object({ archived: Type.Optional(Type.Boolean({ default: false })) }),
            response: { 200: Type.Array(UnitSchema), ...problems(400, 401, 404) },
          },
        },
        async (request) => deps.sitesCrews.list(principalOf(request), request.params.id, kind, request.query.archived === true),
      );
      app.post(
        `/orgs/:id/${plural}/:unit_id/archive`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: `Archive a ${kind}: no new job can name it; its jobs keep it (managers)`,
            security: bearer,
            params: Type.Object({ id: Id, unit_id: Id }),
            response: { 200: UnitSchema, ...problems(401, 403, 404) },
          },
        },
        async (request) => deps.sitesCrews.archive(principalOf(request), request.params.id, kind, request.params.unit_id),
      );
    }

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
        const sep = lang === 'tr' ? ';' : ',';
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
        // One column per equipment group any job was found without, named in the reader's language.
        const groupNames = new Map<string, string>();
        const perJob = jobs.map((j) => {
          const counts = new Map<string, number>();
          const violations = Array.isArray(j.result?.violations) ? (j.result.violations as Array<{ group?: string[] }>) : [];
          const names = (j.result?.names?.[lang] ?? j.result?.names?.en ?? {}) as { violation_group_names?: string[] };
          violations.forEach((v, n) => {
            const key = groupKey(v.group ?? []);
            counts.set(key, (counts.get(key) ?? 0) + 1);
            if (!groupNames.has(key)) groupNames.set(key, names.violation_group_names?.[n] ?? key);
          });
          return counts;
        });
        const groups = [...groupNames.keys()];
        const origin = `${request.protocol}://${request.host}`;
        const header = [...CSV_HEADERS[lang].slice(0, 6), ...groups.map((g) => VIOLATIONS_HEADER[lang](groupNames.get(g)!)), CSV_HEADERS[lang][6]!];
        const lines = [header.map((h) => csvCell(h, sep)).join(sep)];
        jobs.forEach((j, i) => {
          const jobTypeName = (j.result?.names?.[lang] as { job_display_name?: string } | undefined)?.job_display_name ?? (typeof j.result?.job_type === 'string' ? j.result.job_type : j.params.job_type);
          const cells = [
            j.created_at.slice(0, 16).replace('T', ' '),
            j.site_id ? (siteNames.get(j.site_id) ?? '') : '',
            j.crew_id ? (crewNames.get(j.crew_id) ?? '') : '',
            j.work_order ?? '',
            jobTypeName,
            STATUS[lang][j.status] ?? j.status,
            ...groups.map((g) => (j.status === 'done' ? (perJob[i]!.get(g) ?? 0) : '')),
            `${origin}/dashboard/jobs/${j.id}`,
          ];
          lines.push(cells.map((c) => csvCell(c, sep)).join(sep));
        });
        const body = `\uFEFF${lines.join('\r\n')}\r\n`;
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
