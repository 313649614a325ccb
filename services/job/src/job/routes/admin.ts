import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, preferredLang, principalOf, problems } from '@baret/platform';
import type { JobRoutesDeps } from './deps.js';
import { listItem } from './present.js';
import { bearer, JobItemSchema, Str, UsageSchema } from './schemas.js';

/** What the admin job search looks in: what the history rows show. */
const ADMIN_SEARCH_FIELDS = ['id', 'user_email', 'user_full_name', 'input_filename', 'model_used', 'status', 'result.job_type', 'result.names.tr.job_display_name', 'result.names.en.job_display_name'] as const;

/** Every user's jobs, cancelling and deleting one, and the usage (admins). */
export const adminRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/admin/jobs',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Every user’s jobs, newest first, searchable by id, email, file name, model, status or job type',
          security: bearer,
          querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }), q: Type.Optional(Type.String({ maxLength: 200 })) }),
          response: { 200: Type.Array(JobItemSchema), ...problems(400, 401, 403) },
        },
      },
      async (request) => {
        const q = request.query.q?.trim();
        const found = await deps.jobs.find({
          // the job type as rows show it too: its slug and its name in either language
          ...(q ? { search: { text: q, fields: [...ADMIN_SEARCH_FIELDS] } } : {}),
          orderBy: [{ field: 'created_at', direction: 'desc' }],
          limit: request.query.limit,
        });
        const lang = preferredLang(request.headers['accept-language']);
        return found.map((j) => listItem(j, true, lang));
      },
    );

    app.post(
      '/admin/jobs/:id/cancel',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Stop a queued or running job; its quota unit goes back to the user',
          security: bearer,
          params: IdParams,
          response: { 202: Type.Object({ job_id: Str, status: Str }), ...problems(401, 403, 404, 409) },
        },
      },
      async (request, reply) => reply.code(202).send(await deps.cancel(request.params.id, principalOf(request).userId, auditSourceOf(request))),
    );

    app.delete(
      '/admin/jobs/:id',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Delete a finished job with everything stored for it',
          security: bearer,
          params: IdParams,
          response: { 204: Type.Null(), ...problems(401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await deps.remove(request.params.id, principalOf(request).userId, auditSourceOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/admin/usage',
      {
        preHandler: app.requireAdmin,
        schema: { tags: ['admin'], summary: 'Tokens and cost, per user and in total', security: bearer, response: { 200: UsageSchema, ...problems(401, 403) } },
      },
      async () => {
        const rows = await deps.usage.find({ orderBy: [{ field: 'total_cost', direction: 'desc' }, { field: 'email' }] });
        const round = (n: number) => Math.round(n * 1e6) / 1e6;
        return {
          total_prompt_tokens: rows.reduce((s, r) => s + r.total_prompt_tokens, 0),
          total_completion_tokens: rows.reduce((s, r) => s + r.total_completion_tokens, 0),
          total_cost: round(rows.reduce((s, r) => s + r.total_cost, 0)),
          currency: 'USD',
          users: rows.map((r) => ({
            user_id: r.id,
            email: r.email,
            full_name: r.full_name,
            job_count: r.job_count,
            total_prompt_tokens: r.total_prompt_tokens,
            total_completion_tokens: r.total_completion_tokens,
            total_cost: r.total_cost,
          })),
        };
      },
    );
  };
