import { randomBytes, randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, Nullable, NotFoundError, principalOf, problems, ValidationError } from '@baret/platform';
import { checkUrl } from '../checkUrl.js';
import { WEBHOOK_EVENTS } from '../notices.js';
import { bearer, NullableStr, Str, type RoutesDeps } from '../routeDeps.js';

const MAX_WEBHOOKS = 10;

const WebhookEventSchema = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));
const WebhookSchema = Type.Object({
  id: Str,
  url: Str,
  events: Type.Array(WebhookEventSchema),
  created_at: Str,
  disabled_at: NullableStr,
  failing_since: NullableStr,
});
const DeliverySchema = Type.Object({
  id: Type.String({ description: 'The Baret-Delivery header: one id per event, the same on every retry' }),
  event: WebhookEventSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_error: NullableStr,
  next_attempt_at: NullableStr,
  created_at: Str,
  delivered_at: NullableStr,
});

const webhookView = (h: { id: string; url: string; events: string[]; created_at: string; disabled_at: string | null; failing_since: string | null }) => ({
  id: h.id,
  url: h.url,
  events: h.events as (typeof WEBHOOK_EVENTS)[number][],
  created_at: h.created_at,
  disabled_at: h.disabled_at,
  failing_since: h.failing_since,
});

/** Your webhooks: created (its secret shown once), listed, deleted, and each one's deliveries. */
export const webhookRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols, clock } = deps;

  app.post(
    '/webhooks',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['webhooks'],
        summary: 'Create a webhook; its signing secret is returned only now',
        security: bearer,
        body: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }), events: Type.Array(WebhookEventSchema, { minItems: 1, maxItems: 3, uniqueItems: true }) }, { additionalProperties: false }),
        response: { 201: Type.Composite([WebhookSchema, Type.Object({ secret: Type.String({ description: 'whsec_…: signs Baret-Signature; shown once' }) })]), ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const userId = principalOf(request).userId;
      const url = await checkUrl(request.body.url, deps.allowPrivateHosts);
      if ((await cols.webhooks.count({ user_id: userId })) >= MAX_WEBHOOKS) throw new ValidationError('You can have at most 10 webhooks. Delete one first.');
      const doc = {
        id: randomUUID(),
        user_id: userId,
        url: url.href,
        events: [...request.body.events],
        secret: `whsec_${randomBytes(24).toString('base64url')}`,
        created_at: clock().toISOString(),
        disabled_at: null,
        failing_since: null,
      };
      await cols.webhooks.put(doc.id, doc);
      return reply.code(201).send({ ...webhookView(doc), secret: doc.secret });
    },
  );

  app.get(
    '/webhooks',
    { preHandler: app.requireUser, schema: { tags: ['webhooks'], summary: 'Your webhooks (without their secrets)', security: bearer, response: { 200: Type.Array(WebhookSchema), ...problems(401) } } },
    async (request) => (await cols.webhooks.find({ where: { user_id: principalOf(request).userId }, orderBy: [{ field: 'created_at' }, { field: 'id' }] })).map(webhookView),
  );

  const ownWebhook = async (userId: string, id: string) => {
    const hook = await cols.webhooks.get(id);
    if (!hook || hook.user_id !== userId) throw new NotFoundError('This webhook does not exist.');
    return hook;
  };

  app.delete(
    '/webhooks/:id',
    { preHandler: app.requireUser, schema: { tags: ['webhooks'], summary: 'Delete a webhook; nothing more is sent to it', security: bearer, params: IdParams, response: { 204: Type.Null(), ...problems(401, 404) } } },
    async (request, reply) => {
      const hook = await ownWebhook(principalOf(request).userId, request.params.id);
      await cols.webhooks.delete(hook.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['webhooks'],
        summary: "A webhook's deliveries, newest first: status, attempts and the last answer",
        security: bearer,
        params: IdParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) }),
        response: { 200: Type.Array(DeliverySchema), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const hook = await ownWebhook(principalOf(request).userId, request.params.id);
      const list = await cols.deliveries.find({ where: { webhook_id: hook.id }, orderBy: [{ field: 'created_at', direction: 'desc' }, { field: 'id' }], limit: request.query.limit });
      return list.map((d) => ({
        id: d.id,
        event: d.event,
        status: d.status,
        attempts: d.attempts,
        last_status_code: d.last_status_code,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at,
        created_at: d.created_at,
        delivered_at: d.delivered_at,
      }));
    },
  );
};
