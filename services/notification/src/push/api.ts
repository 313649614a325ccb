import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { DomainError, principalOf, problems, ValidationError } from '@baret/platform';
import { checkUrl } from '../checkUrl.js';
import { bearer, Str, type RoutesDeps } from '../routeDeps.js';

const MAX_PUSH_SUBSCRIPTIONS = 20;

const PushSubscriptionBody = Type.Object({
  endpoint: Type.String({ minLength: 1, maxLength: 2048 }),
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  keys: Type.Object({ p256dh: Type.String({ minLength: 1, maxLength: 200 }), auth: Type.String({ minLength: 1, maxLength: 100 }) }),
});

/**
 * A push endpoint (one browser's subscription) registered by another user. It is never moved: a
 * stranger who learnt the endpoint would otherwise stop its owner's notifications or send theirs
 * there. The browser that really holds it makes a new subscription (a new endpoint) and registers that.
 */
export class PushEndpointTakenError extends DomainError {
  readonly status = 409;
  readonly code = 'push_endpoint_taken';
  constructor() {
    super('This browser is already registered for notifications by another account. Turn notifications off and on again in this browser to register it for yours.');
  }
}

/** Web Push: the VAPID key, and this browser's subscription registered or removed. */
export const pushRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols, clock } = deps;

  app.get(
    '/push/vapid-public-key',
    { schema: { tags: ['notifications'], summary: 'The VAPID public key to subscribe to Web Push with (applicationServerKey)', response: { 200: Type.Object({ key: Type.String({ description: 'base64url' }) }) } } },
    async () => ({ key: (await deps.keys()).vapid.publicKey }),
  );

  app.post(
    '/push/subscriptions',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['notifications'],
        summary: "Register this browser's PushSubscription (its toJSON()) for your notifications",
        security: bearer,
        body: PushSubscriptionBody,
        response: { 201: Type.Object({ id: Str }), ...problems(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const userId = principalOf(request).userId;
      await checkUrl(request.body.endpoint, deps.allowPrivateHosts);
      const id = createHash('sha256').update(request.body.endpoint).digest('hex').slice(0, 40);
      const doc = { id, user_id: userId, endpoint: request.body.endpoint, p256dh: request.body.keys.p256dh, auth: request.body.keys.auth, created_at: clock().toISOString() };
      let existing = await cols.pushSubscriptions.get(id);
      if (!existing) {
        if ((await cols.pushSubscriptions.count({ user_id: userId })) >= MAX_PUSH_SUBSCRIPTIONS) {
          throw new ValidationError('You can have at most 20 devices with notifications. Remove one first.');
        }
        // Of two registrations of a new endpoint at once, one inserts; the other is judged against it.
        if (await cols.pushSubscriptions.insert(id, doc)) return reply.code(201).send({ id });
        existing = await cols.pushSubscriptions.get(id);
      }
      if (existing?.user_id !== userId) throw new PushEndpointTakenError();
      // The owner again (the browser's keys changed): the subscription is updated.
      await cols.pushSubscriptions.put(id, { ...doc, created_at: existing.created_at });
      return reply.code(201).send({ id });
    },
  );

  app.delete(
    '/push/subscriptions',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['notifications'],
        summary: 'Stop push notifications to this browser (the endpoint of its subscription)',
        security: bearer,
        body: Type.Object({ endpoint: Type.String({ minLength: 1, maxLength: 2048 }) }),
        response: { 204: Type.Null(), ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const id = createHash('sha256').update(request.body.endpoint).digest('hex').slice(0, 40);
      const existing = await cols.pushSubscriptions.get(id);
      if (existing && existing.user_id === principalOf(request).userId) await cols.pushSubscriptions.delete(id);
      return reply.code(204).send(null);
    },
  );
};
