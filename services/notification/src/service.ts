import type { FastifyInstance } from 'fastify';
import type { Collection, DocumentStore, EventStore, MessageBus, ServiceModule } from '@baret/platform';
import type { Logger } from 'pino';
import { createClaims, defaultOwner, type Claims } from './claims.js';
import { createEngine, type Engine } from './engine.js';
import { createMailer, type Mailer } from './mailer.js';
import { createOrgHandler } from './orgs/handler.js';
import { mailStatusRoutes } from './mailStatus.js';
import { notificationRoutes } from './routes.js';
import { C, collections, loadKeys, type Collections, type OutboxDoc, type ServiceKeys } from './store.js';
import { notificationTasks } from './tasks.js';
import { contactRoutes, submitContact } from './team/contact.js';
import { INBOX, inboxRoutes, type InboxDoc } from './team/inbox.js';
import { onTeamEvent } from './team/teamMail.js';
import { onUserEvent } from './users/handler.js';
import { personalData } from './users/personalData.js';

export { CONTACT_MESSAGE_MIN, MESSAGE_MAX } from './team/contact.js';

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

/**
 * The notification service: the team's mail, and job, quota and account notifications to users
 * (issue 29). Only wires: the engine (engine.ts) sends, each resource's folder holds its routes
 * and handlers (inApp, preferences, push, webhooks, outbox, team, users, orgs).
 */
export function createNotificationService(opts: NotificationOptions) {
  const { eventStore, documents, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const mailer: Mailer | null = createMailer(opts.smtpUrl, opts.smtpFrom);
  const outbox = documents.collection<NotificationDoc>(NOTIFICATIONS);
  const inbox = documents.collection<InboxDoc>(INBOX);
  const cols = collections(documents);
  const keys = keysOf(cols, opts.vapidKeys);
  const claims = createClaims(cols.claims, { owner: opts.instanceId ?? defaultOwner(), leaseMs: opts.claimLeaseMs ?? 120_000 });
  const engine = engineOf(opts, { cols, claims, outbox, mailer, keys, clock });
  const onOrgEvent = createOrgHandler(cols, engine);

  const routes = async (instance: FastifyInstance) => {
    await instance.register(notificationRoutes({ cols, outbox, keys, allowPrivateHosts: opts.allowPrivateHosts ?? false, clock }));
    await instance.register(mailStatusRoutes(mailer !== null));
    await instance.register(contactRoutes({ eventStore, clock, contactRateLimit: opts.contactRateLimit }));
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
      app.get<{ Params: { id: string } }>('/personal-data/:id', async (request) => personalData(cols, request.params.id));
    },
    indexes: {
      [C.inApp]: [{ user_id: 1, created_at: -1 }, { user_id: 1, read_at: 1 }],
      [C.deliveries]: [{ status: 1, next_attempt_at: 1 }, { webhook_id: 1, created_at: -1 }],
      [C.webhooks]: [{ user_id: 1, created_at: 1 }],
      [C.pushSubscriptions]: [{ user_id: 1 }],
      [C.orgMembers]: [{ org_id: 1, role: 1 }],
      [C.recipients]: [{ email: 1 }],
    },
    tasks: notificationTasks(bus, engine, {
      onJobOrQuotaEvent: (event, signal) => engine.handleEvent(event, signal),
      onUserEvent: (event, signal) => onUserEvent({ cols, outbox, engine }, event, signal),
      onOrgEvent,
      onTeamEvent: (event) => onTeamEvent({ outbox, inbox, claims, mailer, teamEmail: opts.teamEmail, log, clock }, event),
    }),
  };

  return {
    module,
    submitContact: (input: Parameters<typeof submitContact>[1], userId: string | null) => submitContact({ eventStore, clock }, input, userId),
    outbox,
    inbox,
    cols,
    engine,
    keys,
    personalData: (userId: string) => personalData(cols, userId),
    close: () => mailer?.close(),
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;

/** The VAPID keys and the unsubscribe secret, loaded once (again after a failed load). */
function keysOf(cols: Collections, pinned: NotificationOptions['vapidKeys']): () => Promise<ServiceKeys> {
  let keysLoaded: Promise<ServiceKeys> | null = null;
  return () => (keysLoaded ??= loadKeys(cols.keys, pinned).catch((e: unknown) => {
    keysLoaded = null;
    throw e;
  }));
}

/** The engine, with the links, the VAPID subject and the webhook settings the options give. */
function engineOf(
  opts: NotificationOptions,
  parts: { cols: Collections; claims: Claims; outbox: Collection<OutboxDoc>; mailer: Mailer | null; keys: () => Promise<ServiceKeys>; clock: () => Date },
): Engine {
  const { mailer } = parts;
  const publicUrl = opts.publicUrl ?? 'http://localhost:8080';
  const fromAddress = /<([^>]+)>/.exec(opts.smtpFrom)?.[1] ?? opts.smtpFrom;
  return createEngine({
    ...parts,
    publicUrl,
    ...(opts.linksFromRequest ? { trustedOrigin: (origin: string) => trustedOrigin(origin, { delivered: mailer !== null, allowed: opts.allowedOrigins ?? [] }) } : {}),
    allowPrivateHosts: opts.allowPrivateHosts ?? false,
    vapidSubject: publicUrl.startsWith('https://') ? publicUrl : `mailto:${fromAddress.includes('@') ? fromAddress : 'no-reply@baret.app'}`,
    log: opts.log,
    retryBaseMs: opts.webhookRetryBaseMs,
  });
}
