import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { DomainError, IdParams, Nullable, NotFoundError, preferredLang, principalOf, problems, ValidationError, type Collection, type Lang } from '@baret/platform';
import { readUnsubscribeToken, redactLinks } from './email.js';
import type { OutboxDoc } from './engine.js';
import { CHANNELS, NOTICE_KINDS, noticeText, WEBHOOK_EVENTS, type Notice } from './notices.js';
import { BlockedAddressError, checkTarget, isPrivateAddress } from './safeHttp.js';
import { preferencesOf, type Collections, type InAppDoc, type ServiceKeys } from './store.js';

export interface RoutesDeps {
  cols: Collections;
  outbox: Collection<OutboxDoc>;
  keys: () => Promise<ServiceKeys>;
  allowPrivateHosts: boolean;
  clock: () => Date;
}

const bearer = [{ bearer: [] }];
const Str = Type.String();
const NullableStr = Nullable(Type.String());
const MAX_WEBHOOKS = 10;
const MAX_PUSH_SUBSCRIPTIONS = 20;

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

const ChannelPrefs = Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, Type.Boolean()])) as Record<(typeof CHANNELS)[number], ReturnType<typeof Type.Boolean>>);
const PreferencesSchema = Type.Object(Object.fromEntries(NOTICE_KINDS.map((k) => [k, ChannelPrefs])) as Record<(typeof NOTICE_KINDS)[number], typeof ChannelPrefs>);
const PartialChannelPrefs = Type.Partial(ChannelPrefs, { additionalProperties: false });
const PreferencesPatch = Type.Partial(
  Type.Object(Object.fromEntries(NOTICE_KINDS.map((k) => [k, PartialChannelPrefs])) as Record<(typeof NOTICE_KINDS)[number], typeof PartialChannelPrefs>),
  { additionalProperties: false },
);
const PreferencesAnswer = Type.Object({ preferences: PreferencesSchema, language: Type.Union([Type.Literal('tr'), Type.Literal('en')]) });

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

const view = (doc: InAppDoc, lang: Lang) => {
  const { title, body } = noticeText({ kind: doc.kind, data: doc.data } as Notice, lang);
  return { id: doc.id, kind: doc.kind, title, body, job_id: doc.job_id, url: doc.path, read: doc.read_at !== null, created_at: doc.created_at };
};

const webhookView = (h: { id: string; url: string; events: string[]; created_at: string; disabled_at: string | null; failing_since: string | null }) => ({
  id: h.id,
  url: h.url,
  events: h.events as (typeof WEBHOOK_EVENTS)[number][],
  created_at: h.created_at,
  disabled_at: h.disabled_at,
  failing_since: h.failing_since,
});

/** A webhook or push target: http(s), and — unless private hosts are allowed — public after DNS resolution. */
async function checkUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('The URL must be a full http:// or https:// URL.');
  }
  if (url.username || url.password) throw new ValidationError('The URL must not contain a user name or password.');
  try {
    checkTarget(url, allowPrivate);
  } catch (e) {
    if (e instanceof BlockedAddressError && !url.protocol.startsWith('http')) throw new ValidationError('The URL must be a full http:// or https:// URL.');
    if (e instanceof BlockedAddressError) throw new ValidationError('Private, loopback and link-local addresses are not allowed.');
    throw e;
  }
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A name that does not resolve (now) is left to the check at connect time, which every request makes.
    const addresses = await Promise.race([
      lookup(host, { all: true }).catch(() => []),
      new Promise<[]>((resolve) => setTimeout(() => resolve([]), 3000).unref()),
    ]);
    if (addresses.some((a) => isPrivateAddress(a.address))) throw new ValidationError('Private, loopback and link-local addresses are not allowed.');
  }
  return url;
}

const unsubscribePage = (lang: Lang, state: 'ask' | 'done', token: string) => {
  const t = {
    tr: { title: 'Abonelikten çık', ask: 'Bu tür e-postaları artık almak istemiyor musunuz?', button: 'Abonelikten çık', done: 'Bu tür e-postaları artık almayacaksınız. Tercihlerinizi profil sayfanızdan değiştirebilirsiniz.' },
    en: { title: 'Unsubscribe', ask: 'Stop receiving this kind of e-mail?', button: 'Unsubscribe', done: 'You will no longer receive this kind of e-mail. You can change this on your profile page.' },
  }[lang];
  const body =
    state === 'ask'
      ? `<p>${t.ask}</p><form method="post" action="/notifications/unsubscribe?token=${encodeURIComponent(token)}"><button type="submit">${t.button}</button></form>`
      : `<p>${t.done}</p>`;
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${t.title} · Baret</title></head><body style="font-family:system-ui,sans-serif;max-width:480px;margin:48px auto;padding:0 16px"><h1>${t.title}</h1>${body}</body></html>`;
};

export const notificationRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols, clock } = deps;
  const langOf = (request: { headers: Record<string, string | string[] | undefined> }) => preferredLang(request.headers['accept-language'] as string | undefined);
  // One-click unsubscribe (RFC 8058) posts "List-Unsubscribe=One-Click" as a form; only the token in the URL counts.
  instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, { form: String(body).slice(0, 200) }));

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

  app.get(
    '/notifications/preferences',
    {
      preHandler: app.requireUser,
      schema: { tags: ['notifications'], summary: 'Which notifications you get on which channel, and their language', security: bearer, response: { 200: PreferencesAnswer, ...problems(401) } },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      return { preferences: await preferencesOf(cols.preferences, userId), language: (await cols.recipients.get(userId))?.language ?? 'tr' };
    },
  );

  app.put(
    '/notifications/preferences',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['notifications'],
        summary: 'Change some of your notification preferences (kinds × channels) or the language of your mails and pushes',
        security: bearer,
        body: Type.Object({ preferences: Type.Optional(PreferencesPatch), language: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])) }, { additionalProperties: false }),
        response: { 200: PreferencesAnswer, ...problems(400, 401) },
      },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      const prefs = await preferencesOf(cols.preferences, userId);
      for (const [kind, channels] of Object.entries(request.body.preferences ?? {})) {
        for (const [channel, on] of Object.entries(channels ?? {})) if (typeof on === 'boolean') prefs[kind as keyof typeof prefs][channel as keyof (typeof prefs)['quota']] = on;
      }
      await cols.preferences.put(userId, { id: userId, preferences: prefs });
      const recipient = await cols.recipients.get(userId);
      if (request.body.language && recipient && recipient.language !== request.body.language) await cols.recipients.put(userId, { ...recipient, language: request.body.language });
      return { preferences: prefs, language: request.body.language ?? recipient?.language ?? 'tr' };
    },
  );

  const unsubscribeQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 500 }) });
  app.get(
    '/notifications/unsubscribe',
    {
      schema: { tags: ['notifications'], summary: 'The page an e-mail\'s unsubscribe link opens (no login): one button turns that kind of e-mail off', querystring: unsubscribeQuery, produces: ['text/html'] },
    },
    async (request, reply) => {
      if (!readUnsubscribeToken((await deps.keys()).unsubscribeSecret, request.query.token)) throw new ValidationError('This unsubscribe link is not valid.');
      return reply.code(200).type('text/html; charset=utf-8').send(unsubscribePage(langOf(request), 'ask', request.query.token));
    },
  );

  app.post(
    '/notifications/unsubscribe',
    {
      schema: {
        tags: ['notifications'],
        summary: 'One-click unsubscribe (RFC 8058, no login): the signed token names the user and the kind of e-mail to turn off',
        querystring: unsubscribeQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const target = readUnsubscribeToken((await deps.keys()).unsubscribeSecret, request.query.token);
      if (!target) throw new ValidationError('This unsubscribe link is not valid.');
      const prefs = await preferencesOf(cols.preferences, target.userId);
      prefs[target.kind].email = false;
      await cols.preferences.put(target.userId, { id: target.userId, preferences: prefs });
      return reply.code(200).type('text/html; charset=utf-8').send(unsubscribePage(lang, 'done', ''));
    },
  );

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
