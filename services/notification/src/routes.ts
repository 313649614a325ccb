import type { FastifyInstance } from 'fastify';
import { inAppRoutes } from './inApp/api.js';
import { outboxRoutes } from './outbox/api.js';
import { preferencesRoutes } from './preferences/api.js';
import { unsubscribeRoutes } from './preferences/unsubscribe.js';
import { pushRoutes } from './push/api.js';
import type { RoutesDeps } from './routeDeps.js';
import { webhookRoutes } from './webhooks/api.js';

export type { RoutesDeps } from './routeDeps.js';

/**
 * The notification routes, one plugin per resource: in-app notifications, preferences and
 * unsubscribing, push subscriptions, webhooks, the admin's outbox.
 */
export const notificationRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  // One-click unsubscribe (RFC 8058) posts "List-Unsubscribe=One-Click" as a form; only the token in the URL counts.
  instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, { form: String(body).slice(0, 200) }));
  await instance.register(inAppRoutes(deps));
  await instance.register(preferencesRoutes(deps));
  await instance.register(unsubscribeRoutes(deps));
  await instance.register(pushRoutes(deps));
  await instance.register(webhookRoutes(deps));
  await instance.register(outboxRoutes(deps));
};
