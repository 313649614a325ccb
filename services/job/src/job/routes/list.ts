import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ForbiddenError, IdParams, preferredLang, principalOf, problems, type Filter } from '@baret/platform';
import { dateBound } from '../../compliance/queries.js';
import type { JobDoc } from '../../readModels/jobs.js';
import { findingsToReview } from '../findings.js';
import type { JobRoutesDeps } from './deps.js';
import { listItem, NO_NAMES } from './present.js';
import { bearer, DateParam, JobItemSchema, StatusSchema } from './schemas.js';

/** Your jobs, or (managers) every job of your organisation, filtered. */
export const listRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/jobs',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'Your jobs, newest first; with scope=org, every job of your organisation (managers)',
          description:
            'Filters: `site_id`, `crew_id`, `user_id` (who recorded it), `status`, `from` and `to` (the day the job was recorded, UTC; `to` includes its day), `has_violations` (finished jobs with or without violations), ' +
            '`reviewed` (false: the review queue — finished jobs with findings, violations or cannot tell, that no review stands for yet; true: finished jobs with none left; a job finished before reviews existed is counted from its result). ' +
            '`scope=org` lists the jobs of every member of your organisation, with who recorded them: managers only (403 for members).',
          security: bearer,
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            scope: Type.Optional(Type.Union([Type.Literal('own'), Type.Literal('org')], { default: 'own' })),
            site_id: Type.Optional(IdParams.properties.id),
            crew_id: Type.Optional(IdParams.properties.id),
            user_id: Type.Optional(IdParams.properties.id),
            status: Type.Optional(StatusSchema),
            from: Type.Optional(DateParam),
            to: Type.Optional(DateParam),
            has_violations: Type.Optional(Type.Boolean()),
            reviewed: Type.Optional(Type.Boolean({ description: 'false: jobs with findings not yet reviewed (the review queue); true: jobs with none left' })),
          }),
          response: { 200: Type.Array(JobItemSchema), ...problems(400, 401, 403) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const q = request.query;
        const org = q.scope === 'org';
        if (org && (!principal.orgId || principal.orgRole !== 'manager')) throw new ForbiddenError('Only the managers of the organisation can see all of its jobs.');
        const where: Filter = org ? { org_id: principal.orgId! } : { user_id: principal.userId };
        if (q.site_id) where.site_id = q.site_id;
        if (q.crew_id) where.crew_id = q.crew_id;
        // Another person's jobs only within the organisation's list; one's own list stays one's own.
        if (q.user_id && org) where.user_id = q.user_id;
        if (q.status) where.status = q.status;
        if (q.has_violations !== undefined) where.has_violations = q.has_violations;
        // A job finished before reviews existed (issue 53) has no count of findings to review in its
        // document: it is read apart and counted from its result (no review can stand for it yet).
        const legacy: Filter | undefined = q.reviewed !== undefined && (!q.status || q.status === 'done') ? { ...where, status: 'done', to_review: null } : undefined;
        if (q.reviewed !== undefined) where.to_review = q.reviewed ? 0 : { $gt: 0 };
        if (q.from || q.to) {
          const range: { $gte?: string; $lt?: string } = {};
          if (q.from) range.$gte = dateBound(q.from, 'from', new Date(0));
          if (q.to) range.$lt = dateBound(q.to, 'to', new Date(0));
          where.created_at = range;
          if (legacy) legacy.created_at = range;
        }
        const query = { where, orderBy: [{ field: 'created_at', direction: 'desc' as const }], limit: q.limit };
        const inList = (j: JobDoc) => (findingsToReview(j.result) > 0) !== q.reviewed;
        const lang = preferredLang(request.headers['accept-language']);
        // One's own jobs are the personal ones and those of the organisation one belongs to now: a job
        // recorded for an organisation one left stays with it (issue 37).
        const orgIds = org ? [undefined] : [null, ...(principal.orgId ? [principal.orgId] : [])];
        const load = async () => {
          const names = principal.orgId ? await deps.unitNames(principal.orgId) : NO_NAMES;
          const queries = [query, ...(legacy ? [{ ...query, where: legacy }] : [])];
          const found = (
            await Promise.all(
              queries.flatMap((one) =>
                orgIds.map(async (orgId) => {
                  const jobs = await deps.jobs.find(orgId === undefined ? one : { ...one, where: { ...one.where, org_id: orgId } });
                  return one === query ? jobs : jobs.filter(inList);
                }),
              ),
            )
          ).flat();
          if (queries.length * orgIds.length > 1) found.sort((a, b) => b.created_at.localeCompare(a.created_at));
          return found.slice(0, q.limit).map((j) => listItem(j, org, lang, names));
        };
        // The user's own list (what the web app polls) comes from the read cache; an organisation's is read afresh.
        return org ? load() : deps.ownJobs(principal.userId, `${lang}\n${principal.orgId ?? ''}\n${JSON.stringify(query)}`, load);
      },
    );
  };
