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
import { createClaims, defaultOwner } from './claims.js';
import { composeMail } from './email.js';
import { createEngine, type OutboxDoc } from './engine.js';
import { createOrgHandler } from './orgs.js';
import { mailStatusRoutes } from './mailStatus.js';
import { notificationRoutes } from './routes.js';
import { C, collections, loadKeys, type ServiceKeys } from './store.js';

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
  /** Where the web app is (PUBLIC_URL), for links in mails, pushes and webhook bodies. */
  publicUrl?: string;
  /** PUBLIC_URL is unset: account mails link to the address their request came to, when trusted (see trustedOrigin). */
  linksFromRequest?: boolean;
  /** Origins (CORS_ORIGINS) a request may name for its mail's links even when mails are delivered by SMTP. */
  allowedOrigins?: readonly string[];
  /** NOTIFY_ALLOW_PRIVATE_HOSTS: webhook and push targets may be private addresses (on-prem). */
  allowPrivateHosts?: boolean;
  /** First webhook retry delay (NOTIFY_WEBHOOK_RETRY_BASE_MS); default 30 s. */
  webhookRetryBaseMs?: number;
  /** This process among the service's replicas, for its claims; default hostname:pid. */
  instanceId?: string;
  /** How long a claimed send is this process's alone (NOTIFY_CLAIM_LEASE_MS); default 2 min. */
  claimLeaseMs?: number;
  /** A VAPID key pair from the operator (VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY); default: made once and stored. */
  vapidKeys?: { publicKey: string; privateKey: string };
}

/** A delivered (or logged) mail: the store of record, one per source event and person. */
export type NotificationDoc = OutboxDoc;

export const NOTIFICATIONS = 'notification_outbox';
export const CONTACT_MESSAGE_MIN = 10;
export const MESSAGE_MAX = 2000;

/**
 * Whether a mail's link may point at the origin its request came to (docs/adr/0028). A request
 * names its own Host, so an address anyone can type would let a stranger ask for a password reset
 * mailed to someone else with a link to the stranger's host. Mails only kept in the outbox (no
 * SMTP) reach nobody; delivered ones link only to loopback or to the configured CORS origins.
 */
export function trustedOrigin(origin: string, o: { delivered: boolean; allowed: readonly string[] }): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin || url.username || url.password) return false;
  if (!o.delivered) return true;
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || o.allowed.some((a) => a.replace(/\/+$/, '') === origin);
}

const blankToNull = (s: string | null | undefined): string | null => s?.trim() || null;

const ACCOUNT_MAILS = {
  password_reset: {
    tr: { title: 'Şifre sıfırlama', body: 'Şifrenizi sıfırlamak için aşağıdaki bağlantıyı kullanın. Bağlantı 1 saat geçerlidir ve yalnızca bir kez kullanılabilir. Yeni şifre tüm oturumlarınızı kapatır. Formda “Tüm API anahtarlarımı da iptal et” işaretlidir: şifrenizi başka birinin bilmiş olabileceğini düşünüyorsanız işaretli bırakın (anahtarları kullanan betikler, yeni anahtar oluşturana kadar durur); API anahtarlarınızın çalışmaya devam etmesi için işareti kaldırın. Bu isteği siz yapmadıysanız bu e-postayı yok sayın.', label: 'Yeni şifre belirle' },
    en: { title: 'Reset your password', body: 'Use the link below to set a new password. It is valid for 1 hour and works once. A new password ends all your sessions. On the form, “Also revoke all my API keys” is ticked: leave it ticked if someone else may have known your password (scripts using the keys stop until you create new ones); untick it to keep your API keys working. If you did not ask for this, ignore this e-mail.', label: 'Set a new password' },
  },
  email_verification: {
    tr: { title: 'E-posta adresinizi doğrulayın', body: "Baret hesabınızın bu adrese ait olduğunu doğrulamak için aşağıdaki bağlantıya tıklayın.", label: 'Adresimi doğrula' },
    en: { title: 'Confirm your e-mail address', body: 'Click the link below to confirm that this address belongs to your Baret account.', label: 'Confirm my address' },
  },
} as const;

/** The notification service: the team's mail, and job, quota and account notifications to users (issue 29). */
export function createNotificationService(opts: NotificationOptions) {
  const { eventStore, documents, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const mailer: Mailer | null = createMailer(opts.smtpUrl, opts.smtpFrom);
  const outbox = documents.collection<NotificationDoc>(NOTIFICATIONS);
  const inbox = documents.collection<InboxDoc>(INBOX);
  const cols = collections(documents);
  let keysLoaded: Promise<ServiceKeys> | null = null;
  const keys = () => (keysLoaded ??= loadKeys(cols.keys, opts.vapidKeys).catch((e: unknown) => {
    keysLoaded = null;
    throw e;
  }));
  const publicUrl = opts.publicUrl ?? 'http://localhost:8080';
  const fromAddress = /<([^>]+)>/.exec(opts.smtpFrom)?.[1] ?? opts.smtpFrom;
  const claims = createClaims(cols.claims, { owner: opts.instanceId ?? defaultOwner(), leaseMs: opts.claimLeaseMs ?? 120_000 });
  const engine = createEngine({
    cols,
    claims,
    outbox,
    mailer,
    keys,
    publicUrl,
    ...(opts.linksFromRequest ? { trustedOrigin: (origin: string) => trustedOrigin(origin, { delivered: mailer !== null, allowed: opts.allowedOrigins ?? [] }) } : {}),
    allowPrivateHosts: opts.allowPrivateHosts ?? false,
    vapidSubject: publicUrl.startsWith('https://') ? publicUrl : `mailto:${fromAddress.includes('@') ? fromAddress : 'no-reply@baret.app'}`,
    log,
    clock,
    retryBaseMs: opts.webhookRetryBaseMs,
  });

  const onOrgEvent = createOrgHandler(cols, engine);

  /** Who users are and the account mails identity asks for (user-events). */
  async function onUserEvent(event: ReturnType<typeof decodeEnvelope>, signal?: AbortSignal): Promise<void> {
    const d = event.data as Record<string, string | undefined>;
    const userId = d.user_id ?? '';
    switch (event.type) {
      case 'user_registered': {
        if (await cols.recipients.get(userId)) return;
        await cols.recipients.put(userId, { id: userId, email: d.email ?? '', full_name: d.full_name ?? null, language: d.language === 'en' ? 'en' : 'tr', deleted: false });
        return;
      }
      case 'user_deleted': {
        // Erasure (issue 30): nothing of the person stays here — a tombstone without address or
        // name keeps a redelivered user_registered from bringing them back.
        const r = await cols.recipients.get(userId);
        // The mails sent to them (the outbox is a log of mails, not an archive of people).
        await outbox.deleteMany({ user_id: userId });
        if (r?.email) await outbox.deleteMany({ to: r.email });
        if (r) await cols.recipients.put(userId, { ...r, email: '', full_name: null, deleted: true });
        await cols.webhooks.deleteMany({ user_id: userId });
        await cols.deliveries.deleteMany({ user_id: userId });
        await cols.pushSubscriptions.deleteMany({ user_id: userId });
        await cols.inApp.deleteMany({ user_id: userId });
        await cols.preferences.delete(userId);
        return;
      }
      case 'password_reset_requested':
      case 'email_verification_requested': {
        const kind = event.type === 'password_reset_requested' ? 'password_reset' : 'email_verification';
        const lang = d.language === 'en' ? 'en' : 'tr';
        const words = ACCOUNT_MAILS[kind][lang];
        const page = kind === 'password_reset' ? 'reset-password' : 'verify-email';
        const recipient = await cols.recipients.get(userId);
        // The address they asked from: their later mails (a job finished, a quota) link there too.
        if (recipient && d.origin && recipient.origin !== d.origin) await cols.recipients.put(userId, { ...recipient, origin: d.origin });
        const composed = composeMail(lang, { name: recipient?.full_name ?? null, title: words.title, body: words.body, link: engine.link(`/${page}?token=${encodeURIComponent(d.token ?? '')}`, d.origin ?? undefined), linkLabel: words.label });
        await engine.mail(`${event.id}:email`, kind, userId, { to: d.email ?? '', ...composed }, signal);
        return;
      }
      default:
    }
  }

  /** What this service keeps about a person, for their export (issue 30): notifications, preferences, webhooks (without their secrets), push subscriptions. */
  async function personalData(userId: string) {
    const strip = <T extends Record<string, unknown>>(docs: T[], ...keys: string[]) => docs.map((d) => Object.fromEntries(Object.entries(d).filter(([k]) => !keys.includes(k))));
    return {
      notifications: await cols.inApp.find({ where: { user_id: userId }, orderBy: [{ field: 'created_at' }] }),
      preferences: (await cols.preferences.get(userId))?.preferences ?? null,
      webhooks: strip(await cols.webhooks.find({ where: { user_id: userId } }), 'secret'),
      push_subscriptions: strip(await cols.pushSubscriptions.find({ where: { user_id: userId } }), 'p256dh', 'auth'),
    };
  }

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
    await claims.claimOrWait(`mail:${id}`);
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
    await instance.register(notificationRoutes({ cols, outbox, keys, allowPrivateHosts: opts.allowPrivateHosts ?? false, clock }));
    await instance.register(mailStatusRoutes(mailer !== null));
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
    tags: [
      { name: 'contact', description: 'Messages to the team' },
      { name: 'notifications', description: 'In-app notifications, preferences, Web Push' },
      { name: 'webhooks', description: 'Signed callbacks for API users' },
    ],
    routes,
    // A person's notifications for their export (issue 30; the job service writes the ZIP).
    internal: async (app) => {
      app.get<{ Params: { id: string } }>('/personal-data/:id', async (request) => personalData(request.params.id));
    },
    indexes: {
      [C.inApp]: [{ user_id: 1, created_at: -1 }, { user_id: 1, read_at: 1 }],
      [C.deliveries]: [{ status: 1, next_attempt_at: 1 }, { webhook_id: 1, created_at: -1 }],
      [C.webhooks]: [{ user_id: 1, created_at: 1 }],
      [C.pushSubscriptions]: [{ user_id: 1 }],
      [C.orgMembers]: [{ org_id: 1, role: 1 }],
      [C.recipients]: [{ email: 1 }],
    },
    tasks: [
      {
        // Job and quota events → the owner's notifications; at least once from the bus, once to the person.
        name: 'notification:events',
        run: (signal) =>
          runConsumer(bus, 'notification-events', ['job-events', 'quota-events'], async (message) => engine.handleEvent(decodeEnvelope(message.value), signal), signal, {
            maxAttempts: 10,
            retryDelayMs: 500,
          }),
      },
      {
        name: 'notification:users',
        run: (signal) => runConsumer(bus, 'notification-users', ['user-events'], async (message) => onUserEvent(decodeEnvelope(message.value), signal), signal, { maxAttempts: 10, retryDelayMs: 500 }),
      },
      {
        // Who manages which organisation, and the invitation mails (issue 28).
        name: 'notification:orgs',
        run: (signal) => runConsumer(bus, 'notification-orgs', ['org-events'], async (message) => onOrgEvent(decodeEnvelope(message.value)), signal, { maxAttempts: 10, retryDelayMs: 500 }),
      },
      { name: 'notification:webhooks', run: (signal) => engine.runDispatcher(signal) },
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

  return { module, submitContact, outbox, inbox, cols, engine, keys, personalData, close: () => mailer?.close() };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
