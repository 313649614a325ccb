import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, NotFoundError, Nullable, principalOf, problems, type Collection, type EventStore } from '@baret/platform';

/**
 * The team's inbox: contact messages and upgrade requests as the admin page lists them, newest
 * first, with a "handled" mark. Built from the same events the team is mailed from; the mark is an
 * event of its own stream (`inbox-<id>`), applied to the read model when it is appended.
 */
export interface InboxDoc extends Record<string, unknown> {
  id: string;
  kind: 'contact' | 'upgrade_request';
  name: string | null;
  email: string;
  subject: string | null;
  message: string | null;
  origin: string | null;
  user_id: string | null;
  created_at: string;
  handled_at: string | null;
  handled_by: string | null;
}

export const INBOX = 'notification_inbox';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * Projects a contact or upgrade event into the inbox, dated when the event was recorded;
 * idempotent (a redelivered event keeps its mark).
 */
export async function projectInbox(inbox: Collection<InboxDoc>, event: { type: string; data: Record<string, unknown>; createdAt: Date }): Promise<void> {
  const { type, data } = event;
  const kind = type === 'contact_message_submitted' ? 'contact' : type === 'upgrade_requested' ? 'upgrade_request' : null;
  const id = str(kind === 'contact' ? data.message_id : data.request_id);
  if (!kind || !id || (await inbox.get(id))) return;
  await inbox.put(id, {
    id,
    kind,
    name: str(data.name),
    email: str(data.email) ?? '',
    subject: str(data.subject),
    message: str(data.message),
    origin: str(data.origin),
    user_id: str(data.user_id),
    created_at: event.createdAt.toISOString(),
    handled_at: null,
    handled_by: null,
  });
}

/** Marks an inbox item handled (or not): an `inbox_item_marked` event, then the read model. */
export async function markHandled(deps: { eventStore: EventStore; inbox: Collection<InboxDoc>; clock: () => Date }, id: string, handled: boolean, by: string): Promise<InboxDoc> {
  const item = await deps.inbox.get(id);
  if (!item) throw new NotFoundError('This message does not exist.');
  const at = deps.clock().toISOString();
  await deps.eventStore.appendToStream(`inbox-${id}`, [{ type: 'inbox_item_marked', data: { item_id: id, handled, by, at } }]);
  const next: InboxDoc = { ...item, handled_at: handled ? at : null, handled_by: handled ? by : null };
  await deps.inbox.put(id, next);
  return next;
}

const Str = Type.String();
const NullableStr = Nullable(Type.String());
const InboxItemSchema = Type.Object({
  id: Str,
  kind: Type.Union([Type.Literal('contact'), Type.Literal('upgrade_request')]),
  name: NullableStr,
  email: Str,
  subject: NullableStr,
  message: NullableStr,
  origin: NullableStr,
  created_at: Str,
  handled: Type.Boolean(),
  handled_at: NullableStr,
});

const view = (doc: InboxDoc) => ({
  id: doc.id,
  kind: doc.kind,
  name: doc.name,
  email: doc.email,
  subject: doc.subject,
  message: doc.message,
  origin: doc.origin,
  created_at: doc.created_at,
  handled: doc.handled_at !== null,
  handled_at: doc.handled_at,
});

const bearer = [{ bearer: [] }];

export const inboxRoutes = (deps: { eventStore: EventStore; inbox: Collection<InboxDoc>; clock: () => Date }) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/inbox',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Contact messages and upgrade requests, newest first, with their sender and handled mark',
        security: bearer,
        querystring: Type.Object({
          kind: Type.Optional(Type.Union([Type.Literal('contact'), Type.Literal('upgrade_request')])),
          limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
        }),
        response: { 200: Type.Array(InboxItemSchema), ...problems(400, 401, 403) },
      },
    },
    async (request) => {
      const { kind, limit } = request.query;
      const docs = await deps.inbox.find({ ...(kind ? { where: { kind } } : {}), orderBy: [{ field: 'created_at', direction: 'desc' }, { field: 'id' }], limit });
      return docs.map(view);
    },
  );

  app.post(
    '/admin/inbox/:id/handled',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Mark a contact message or upgrade request as handled (or not)',
        security: bearer,
        params: IdParams,
        body: Type.Object({ handled: Type.Boolean() }),
        response: { 200: InboxItemSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => view(await markHandled(deps, request.params.id, request.body.handled, principalOf(request).userId)),
  );

  app.get(
    '/usage/upgrade-request',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['usage'],
        summary: 'Whether you have an upgrade request the team has not handled yet',
        security: bearer,
        response: { 200: Type.Object({ pending: Type.Boolean(), requested_at: NullableStr }), ...problems(401) },
      },
    },
    async (request) => {
      const [latest] = await deps.inbox.find({
        where: { kind: 'upgrade_request', user_id: principalOf(request).userId, handled_at: null },
        orderBy: [{ field: 'created_at', direction: 'desc' }],
        limit: 1,
      });
      return { pending: latest !== undefined, requested_at: latest?.created_at ?? null };
    },
  );
};
