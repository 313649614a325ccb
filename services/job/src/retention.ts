import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { IdParams, principalOf, problems, type Collection, type DocumentStore } from '@baret/platform';
import type { Logger } from 'pino';
import { isFinished } from './job/job.js';
import type { JobDoc } from './readModels/jobs.js';
import { requireOrg } from './orgAccess.js';

/**
 * Retention (issue 30, docs/adr/0025): a job older than its organisation's period (or the global
 * one: RETENTION_DAYS, 365 by default, changed by an admin) is purged — results, evidence objects,
 * read-model rows, and its event data shredded — by a sweep at start and then periodically. Two
 * replicas sweeping at once purge each job once: the job's stream takes one `job_purged`, the rest
 * of a purge is idempotent.
 */
export const RETENTION = 'job_retention';

interface RetentionDoc extends Record<string, unknown> {
  id: string;
  days: number | null;
  updated_by: string;
  updated_at: string;
}

const DAY_MS = 86_400_000;
const Days = Type.Integer({ minimum: 1, maximum: 36500, description: 'days a job is kept after it was created' });

export interface RetentionDeps {
  documents: DocumentStore;
  jobs: Collection<JobDoc>;
  /** RETENTION_DAYS: the global period until an admin sets another. */
  defaultDays: number;
  clock: () => Date;
  /** Purges a finished job; true when this call recorded it (false: another replica did first). */
  purge: (jobId: string, reason: 'retention') => Promise<boolean>;
  log: Logger;
}

export function createRetention(deps: RetentionDeps) {
  const settings = deps.documents.collection<RetentionDoc>(RETENTION);

  async function globalDays(): Promise<number> {
    return (await settings.get('global'))?.days ?? deps.defaultDays;
  }
  async function orgDays(orgId: string): Promise<number | null> {
    return (await settings.get(`org:${orgId}`))?.days ?? null;
  }
  async function set(id: string, days: number | null, by: string) {
    await settings.put(id, { id, days, updated_by: by, updated_at: deps.clock().toISOString() });
    deps.log.info({ setting: id, days, by }, 'retention period changed');
  }

  /** Purges every finished job past its period; returns how many this sweep recorded. */
  async function sweep(): Promise<number> {
    const now = deps.clock().getTime();
    const global = await globalDays();
    const orgs = new Map<string, number>();
    for (const s of await settings.find({ where: { id: { $ne: 'global' } } })) if (s.days) orgs.set(s.id.slice('org:'.length), s.days);
    const shortest = Math.min(global, ...orgs.values());
    const cutoff = new Date(now - shortest * DAY_MS).toISOString();
    let purged = 0;
    let offset = 0;
    for (;;) {
      const page = await deps.jobs.find({ where: { created_at: { $lt: cutoff } }, orderBy: [{ field: 'created_at' }], limit: 100, offset });
      if (page.length === 0) break;
      let kept = 0;
      for (const job of page) {
        const days = (job.org_id ? orgs.get(job.org_id) : undefined) ?? global;
        if (!isFinished(job.status) || Date.parse(job.created_at) >= now - days * DAY_MS) {
          kept++;
          continue;
        }
        try {
          if (await deps.purge(job.id, 'retention')) purged++;
        } catch (err) {
          kept++;
          deps.log.warn({ err, job_id: job.id }, 'could not purge a job past its retention period; trying again at the next sweep');
        }
      }
      offset += kept;
    }
    if (purged > 0) deps.log.info({ purged }, 'jobs past their retention period purged');
    return purged;
  }

  return { globalDays, orgDays, set, sweep };
}
export type Retention = ReturnType<typeof createRetention>;

const bearer = [{ bearer: [] }];

/** The retention settings: the global period (admins) and an organisation's own (its managers, and admins). */
export const retentionRoutes =
  (retention: Retention): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const Global = Type.Object({ days: Days });
    const Org = Type.Object({
      days: Type.Union([Days, Type.Null()], { description: 'the organisation’s own period; null: the global one applies' }),
      effective_days: Days,
      global_days: Days,
    });

    app.get(
      '/admin/retention',
      { preHandler: app.requireAdmin, schema: { tags: ['admin'], summary: 'The global retention period', security: bearer, response: { 200: Global, ...problems(401, 403) } } },
      async () => ({ days: await retention.globalDays() }),
    );
    app.put(
      '/admin/retention',
      {
        preHandler: app.requireAdmin,
        schema: { tags: ['admin'], summary: 'Change the global retention period (jobs older are erased)', security: bearer, body: Global, response: { 200: Global, ...problems(400, 401, 403) } },
      },
      async (request) => {
        await retention.set('global', request.body.days, principalOf(request).userId);
        return { days: await retention.globalDays() };
      },
    );

    const orgView = async (orgId: string) => {
      const [days, global] = await Promise.all([retention.orgDays(orgId), retention.globalDays()]);
      return { days, effective_days: days ?? global, global_days: global };
    };
    app.get(
      '/orgs/:id/retention',
      {
        preHandler: app.requireUser,
        schema: { tags: ['organisations'], summary: 'The organisation’s retention period (members see it)', security: bearer, params: IdParams, response: { 200: Org, ...problems(401, 404) } },
      },
      async (request) => {
        requireOrg(principalOf(request), request.params.id, 'member');
        return orgView(request.params.id);
      },
    );
    app.put(
      '/orgs/:id/retention',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['organisations'],
          summary: 'Set the organisation’s own retention period (managers and admins); its jobs older are erased',
          security: bearer,
          params: IdParams,
          body: Type.Object({ days: Days }),
          response: { 200: Org, ...problems(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        if (!principal.isAdmin) requireOrg(principal, request.params.id, 'manager');
        await retention.set(`org:${request.params.id}`, request.body.days, principal.userId);
        return orgView(request.params.id);
      },
    );
    app.delete(
      '/orgs/:id/retention',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['organisations'],
          summary: 'Drop the organisation’s own retention period: the global one applies again (managers and admins)',
          security: bearer,
          params: IdParams,
          response: { 200: Org, ...problems(401, 403, 404) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        if (!principal.isAdmin) requireOrg(principal, request.params.id, 'manager');
        await retention.set(`org:${request.params.id}`, null, principal.userId);
        return orgView(request.params.id);
      },
    );
  };
