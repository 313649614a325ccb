import type { Collection, DecodedEnvelope } from '@baret/platform';
import type { Logger } from 'pino';
import type { Claims } from './claims.js';
import type { Delivery } from './delivery.js';
import type { Mailer, OutgoingMail } from './mailer.js';
import type { Notice } from './notices.js';
import { handleEvent, notify } from './notify.js';
import { mail } from './outbox/mail.js';
import type { Collections, OutboxDoc, ServiceKeys } from './store.js';
import { runDispatcher } from './webhooks/dispatch.js';

export { retryDelayMs, signatureHeader } from './webhooks/dispatch.js';
export { stableUuid } from './webhooks/queue.js';

/**
 * The notification engine: how a notice reaches a person. Its parts are one module each —
 * notify.ts (who is told, on which channels), outbox/mail.ts, push/send.ts, webhooks/queue.ts and
 * webhooks/dispatch.ts — given the same Delivery, made here once.
 */
export interface EngineOptions {
  cols: Collections;
  outbox: Collection<OutboxDoc>;
  mailer: Mailer | null;
  keys: () => Promise<ServiceKeys>;
  /** Where the web app is, for links in mails, pushes and webhook bodies. */
  publicUrl: string;
  /**
   * PUBLIC_URL is unset: an account mail's link may use the address its request came to (issue 40),
   * when `trustedOrigin` accepts it (docs/adr/0028: no link to a host an attacker named).
   */
  trustedOrigin?: (origin: string) => boolean;
  /** NOTIFY_ALLOW_PRIVATE_HOSTS: webhook and push targets may be private addresses (on-prem). */
  allowPrivateHosts: boolean;
  vapidSubject: string;
  log: Logger;
  clock: () => Date;
  /** Each send (mail, push, webhook attempt) is claimed first: two processes never both send it. */
  claims: Claims;
  webhookTimeoutMs?: number;
  /** First retry delay of a webhook delivery (doubling, with jitter); default 30 s. */
  retryBaseMs?: number;
  /** Retries go on this long after the first attempt, then the delivery is failed; default 24 h. */
  retryForMs?: number;
  /** A webhook failing for this long is disabled; default 3 days. */
  disableAfterMs?: number;
  /** How often due deliveries are looked for when nothing wakes the dispatcher; default 1 s. */
  pollMs?: number;
}

const HOUR = 3600_000;

export function createEngine(o: EngineOptions) {
  const d: Delivery = {
    cols: o.cols,
    outbox: o.outbox,
    mailer: o.mailer,
    keys: o.keys,
    claims: o.claims,
    log: o.log,
    clock: o.clock,
    link: (path: string, origin?: string) => `${(origin && o.trustedOrigin?.(origin) ? origin : o.publicUrl).replace(/\/$/, '')}${path}`,
    allowPrivateHosts: o.allowPrivateHosts,
    vapidSubject: o.vapidSubject,
    timeoutMs: o.webhookTimeoutMs ?? 10_000,
    retryBaseMs: o.retryBaseMs ?? 30_000,
    retryForMs: o.retryForMs ?? 24 * HOUR,
    disableAfterMs: o.disableAfterMs ?? 72 * HOUR,
    pollMs: o.pollMs ?? 1000,
    dispatcher: { wake: null },
  };
  return {
    handleEvent: (event: DecodedEnvelope, signal?: AbortSignal) => handleEvent(d, event, signal),
    notify: (notice: Notice, signal?: AbortSignal) => notify(d, notice, signal),
    mail: (id: string, kind: OutboxDoc['kind'], userId: string | null, message: OutgoingMail, signal?: AbortSignal) => mail(d, id, kind, userId, message, signal),
    runDispatcher: (signal: AbortSignal) => runDispatcher(d, signal),
    link: d.link,
  };
}
export type Engine = ReturnType<typeof createEngine>;
