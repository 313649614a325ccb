import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { problems } from '@baret/platform';
import { redactLinks } from '../email.js';
import { bearer, Str, type RoutesDeps } from '../routeDeps.js';

/** The mails Baret sent (or kept instead of sending), for admins, every link's token hidden. */
export const outboxRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/outbox',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Mails Baret sent or, without SMTP_URL, kept here instead of sending; newest first',
        description: 'Shows that a mail was sent, never a live link: the token of every link (password reset, e-mail confirmation, invitation, unsubscribe) is replaced by `[hidden]` (issue 37).',
        security: bearer,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) }),
        response: {
          200: Type.Array(Type.Object({ id: Str, kind: Str, to: Str, subject: Str, text: Str, channel: Type.Union([Type.Literal('smtp'), Type.Literal('log')]), created_at: Str })),
          ...problems(400, 401, 403),
        },
      },
    },
    async (request) =>
      (await deps.outbox.find({ orderBy: [{ field: 'created_at', direction: 'desc' }, { field: 'id' }], limit: request.query.limit })).map((m) => ({
        id: m.id,
        kind: m.kind,
        to: m.to,
        subject: m.subject,
        text: redactLinks(m.text),
        channel: m.channel,
        created_at: m.created_at,
      })),
  );
};
