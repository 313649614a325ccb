import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError, principalOf, problems, type Lang } from '@baret/platform';
import { NOTICE_KINDS, noticeText, type Notice } from '../notices.js';
import { bearer, langOf, NullableStr, Str, type RoutesDeps } from '../routeDeps.js';
import type { InAppDoc } from '../store.js';

const NotificationSchema = Type.Object({
  id: Str,
  kind: Type.Union([...NOTICE_KINDS.map((k) => Type.Literal(k)), Type.Literal('webhook_disabled')]),
  title: Str,
  body: Str,
  job_id: NullableStr,
  url: Type.String({ description: 'Path of the page in the web app' }),
  read: Type.Boolean(),
  created_at: Str,
});

const view = (doc: InAppDoc, lang: Lang) => {
  const { title, body } = noticeText({ kind: doc.kind, data: doc.data } as Notice, lang);
  return { id: doc.id, kind: doc.kind, title, body, job_id: doc.job_id, url: doc.path, read: doc.read_at !== null, created_at: doc.created_at };
};

/** Your in-app notifications (the bell): listed, marked read one by one or all at once. */
export const inAppRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols, clock } = deps;

  app.get(
    '/notifications',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['notifications'],
        summary: 'Your in-app notifications, newest first, with the unread count',
        security: bearer,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 30 }) }),
        response: { 200: Type.Object({ unread: Type.Integer(), items: Type.Array(NotificationSchema) }), ...problems(400, 401) },
      },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      const lang = langOf(request);
      const [items, unread] = await Promise.all([
        cols.inApp.find({ where: { user_id: userId }, orderBy: [{ field: 'created_at', direction: 'desc' }, { field: 'id' }], limit: request.query.limit }),
        cols.inApp.count({ user_id: userId, read_at: null }),
      ]);
      return { unread, items: items.map((d) => view(d, lang)) };
    },
  );

  app.post(
    '/notifications/:id/read',
    {
      preHandler: app.requireUser,
      schema: { tags: ['notifications'], summary: 'Mark one of your notifications read', security: bearer, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 300 }) }), response: { 204: Type.Null(), ...problems(401, 404) } },
    },
    async (request, reply) => {
      const doc = await cols.inApp.get(request.params.id);
      if (!doc || doc.user_id !== principalOf(request).userId) throw new NotFoundError('This notification does not exist.');
      if (!doc.read_at) await cols.inApp.put(doc.id, { ...doc, read_at: clock().toISOString() });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/notifications/read-all',
    {
      preHandler: app.requireUser,
      schema: { tags: ['notifications'], summary: 'Mark all your notifications read', security: bearer, response: { 200: Type.Object({ updated: Type.Integer() }), ...problems(401) } },
    },
    async (request) => {
      const unread = await cols.inApp.find({ where: { user_id: principalOf(request).userId, read_at: null } });
      const at = clock().toISOString();
      for (const doc of unread) await cols.inApp.put(doc.id, { ...doc, read_at: at });
      return { updated: unread.length };
    },
  );
};
