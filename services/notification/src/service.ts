import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  decodeEnvelope,
  NullableString,
  problems,
  runConsumer,
  ValidationError,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type ServiceModule,
} from '@baret/platform';
import type { Logger } from 'pino';
import { INBOX, inboxRoutes, projectInbox, type InboxDoc } from './inbox.js';
import { createMailer, type Mailer, type OutgoingMail } from './mailer.js';

export interface NotificationOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  bus: MessageBus;
  teamEmail: string;
  smtpUrl?: string;
  smtpFrom: string;
  log: Logger;
  clock?: () => Date;
  /** Contact messages per address per 10 minutes. */
  contactRateLimit?: number;
}

/** A delivered (or logged) notification: the store of record, one per source event. */
export interface NotificationDoc extends Record<string, unknown> {
  id: string;
  kind: 'contact' | 'upgrade_request';
  to: string;
  subject: string;
  text: string;
  reply_to: string | null;
  channel: 'smtp' | 'log';
  created_at: string;
}

export const NOTIFICATIONS = 'notification_outbox';
export const CONTACT_MESSAGE_MIN = 10;
export const MESSAGE_MAX = 2000;

const blankToNull = (s: string | null | undefined): string | null => s?.trim() || null;

/** The notification service: contact messages and upgrade requests delivered to the team. */
export function createNotificationService(opts: NotificationOptions) {
  const { eventStore, documents, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const mailer: Mailer | null = createMailer(opts.smtpUrl, opts.smtpFrom);
  const outbox = documents.collection<NotificationDoc>(NOTIFICATIONS);
  const inbox = documents.collection<InboxDoc>(INBOX);

  async function submitContact(input: { name?: string | null; email: string; subject?: string | null; message: string }, userId: string | null) {
    const email = input.email.trim();
    const message = input.message.trim();
    if (!email) throw new ValidationError('Please enter your email address.');
    if (message.length < CONTACT_MESSAGE_MIN) throw new ValidationError(`Please write a message of at least ${CONTACT_MESSAGE_MIN} characters.`);
    if (message.length > MESSAGE_MAX) throw new ValidationError(`The message must be at most ${MESSAGE_MAX} characters long.`);
    const id = randomUUID();
    await eventStore.appendToStream(
      `contact-${id}`,
      [
        {
          type: 'contact_message_submitted',
          data: { message_id: id, name: blankToNull(input.name), email, subject: blankToNull(input.subject), message, user_id: userId, submitted_at: clock().toISOString() },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    return id;
  }

  /** Idempotent by source event id: a redelivered message is not mailed twice. */
  async function deliver(id: string, kind: NotificationDoc['kind'], mail: OutgoingMail): Promise<void> {
    if (await outbox.get(id)) return;
    if (mailer) await mailer.send(mail);
    await outbox.put(id, {
      id,
      kind,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      reply_to: mail.replyTo ?? null,
      channel: mailer ? 'smtp' : 'log',
      created_at: clock().toISOString(),
    });
    log.info({ notification_id: id, kind, channel: mailer ? 'smtp' : 'log', to: mail.to, subject: mail.subject }, 'notification delivered to the team');
  }

  const routes = async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/contact',
      {
        config: { rateLimit: { max: opts.contactRateLimit ?? 5, timeWindow: '10 minutes', keyGenerator: (req: { ip: string }) => `contact:${req.ip}` } },
        schema: {
          tags: ['contact'],
          summary: 'Send a message to the team',
          body: Type.Object({
            name: Type.Optional(NullableString({ maxLength: 200 })),
            email: Type.String({ format: 'email', maxLength: 254 }),
            subject: Type.Optional(NullableString({ maxLength: 200 })),
            message: Type.String({ maxLength: MESSAGE_MAX + 200 }),
          }),
          response: { 202: Type.Object({ status: Type.Literal('received'), message_id: Type.String() }), ...problems(400, 429) },
        },
      },
      async (request, reply) => {
        const id = await submitContact(request.body, request.principal?.userId ?? null);
        return reply.code(202).send({ status: 'received' as const, message_id: id });
      },
    );
    await instance.register(inboxRoutes({ eventStore, inbox, clock }));
  };

  const module: ServiceModule = {
    name: 'notification',
    tags: [{ name: 'contact', description: 'Messages to the team' }],
    routes,
    tasks: [
      {
        name: 'notification:team',
        run: (signal) =>
          runConsumer(bus, 'notification', ['contact-events', 'upgrade-events'], async (message) => {
            const event = decodeEnvelope(message.value);
            const d = event.data as Record<string, string | undefined>;
            await projectInbox(inbox, event);
            if (event.type === 'contact_message_submitted') {
              await deliver(event.id, 'contact', {
                to: opts.teamEmail,
                subject: `[Baret] ${d.subject ?? 'Contact message'}`,
                text: `From: ${d.name ?? '-'} <${d.email ?? ''}>\n\n${d.message ?? ''}`,
                replyTo: d.email,
              });
            } else if (event.type === 'upgrade_requested') {
              await deliver(event.id, 'upgrade_request', {
                to: opts.teamEmail,
                subject: `[Baret] Pro upgrade request from ${d.email ?? ''}`,
                text: `User: ${d.email ?? ''} (${d.user_id ?? ''})\nOrigin: ${d.origin ?? ''}\n\n${d.message ?? '(no message)'}`,
                replyTo: d.email,
              });
            }
          }, signal),
      },
    ],
  };

  return { module, submitContact, outbox, inbox, close: () => mailer?.close() };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
