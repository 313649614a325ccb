import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, IdParams, NotFoundError, preferredLang, principalOf, problems } from '@baret/platform';
import type { AuditLog } from './auditLog.js';
import { AuditQuery, PageSchema } from './schemas.js';

const bearer = [{ bearer: [] }];

function sendCsv(reply: FastifyReply, body: string, name: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'private, no-store')
    .send(body);
}

export const auditRoutes =
  (audit: AuditLog): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const description =
      'Newest first. Filters: `from`, `to` (a date `to` includes its day), `action`, `actor` (a user id), `object` (a job, user or organisation id). ' +
      '`limit` entries a page; `next_cursor` gives the next page. `format=csv` (or the `.csv` path) exports every matching entry (up to 50,000) as UTF-8 CSV with a byte order mark; ' +
      'in Turkish (`lang=tr` or Accept-Language) separated by semicolons. The log is append-only: there is no route to change or delete an entry.';
    const today = () => new Date().toISOString().slice(0, 10);

    /**
     * One audit route in both forms (a page of JSON; the CSV at `{path}.csv`): the organisation's
     * and the admins' differ only in who may read (`preHandler`, `scope`) and which entries (`scope`).
     */
    type AuditRoute = {
      path: string;
      preHandler: (request: FastifyRequest) => Promise<void>;
      summary: { page: string; csv: string };
      params?: typeof IdParams;
      problems: Parameters<typeof problems>;
      /** Throws when the caller may not read this log; else the entries it covers. */
      scope: (request: FastifyRequest) => { orgId?: string };
    };
    const auditRoute = (route: AuditRoute, suffix: '' | '.csv') =>
      app.get(
        `${route.path}${suffix}`,
        {
          preHandler: route.preHandler,
          config: { rateLimit: { max: suffix ? 30 : 300, timeWindow: '1 minute' } },
          schema: {
            tags: ['audit'],
            summary: suffix ? route.summary.csv : route.summary.page,
            description,
            security: bearer,
            ...(route.params ? { params: route.params } : {}),
            querystring: AuditQuery,
            ...(suffix ? { produces: ['text/csv'] } : {}),
            response: { 200: suffix ? Type.Unsafe<string>({ type: 'string', description: 'CSV document' }) : PageSchema, ...problems(...route.problems) },
          },
        },
        async (request, reply) => {
          const scope = route.scope(request);
          const q = request.query;
          if (suffix || q.format === 'csv') {
            const lang = q.lang ?? preferredLang(request.headers['accept-language']);
            return sendCsv(reply, await audit.csv(scope, q, lang), `baret-audit-${today()}.csv`);
          }
          return audit.list(scope, q);
        },
      );

    const orgLog: AuditRoute = {
      path: '/orgs/:id/audit',
      preHandler: app.requireUser,
      summary: {
        page: 'The organisation’s audit log: who viewed, downloaded, deleted or changed what about its jobs, members and settings (managers)',
        csv: 'The organisation’s audit log as CSV (managers)',
      },
      params: IdParams,
      problems: [400, 401, 403, 404, 429],
      scope: (request) => {
        const principal = principalOf(request);
        const orgId = (request.params as Static<typeof IdParams>).id;
        // The organisation's pattern (sites, compliance): another organisation is a 404, a member a 403.
        if (principal.orgId !== orgId) {
          if (!principal.isAdmin) throw new NotFoundError('This organisation does not exist.');
        } else if (principal.orgRole !== 'manager' && !principal.isAdmin) throw new ForbiddenError('Only the managers of the organisation can read its audit log.');
        return { orgId };
      },
    };
    const adminLog: AuditRoute = {
      path: '/admin/audit',
      preHandler: app.requireAdmin,
      summary: {
        page: 'The whole audit log: sign-ins, views, downloads, deletions, role, quota and setting changes (admins)',
        csv: 'The whole audit log as CSV (admins)',
      },
      problems: [400, 401, 403, 429],
      scope: () => ({}),
    };
    for (const suffix of ['', '.csv'] as const) for (const route of [orgLog, adminLog]) auditRoute(route, suffix);
  };
