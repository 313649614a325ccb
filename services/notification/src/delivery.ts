import type { Collection } from '@baret/platform';
import type { Logger } from 'pino';
import { Stopping, type Claims } from './claims.js';
import type { Mailer } from './mailer.js';
import type { Collections, OutboxDoc, ServiceKeys } from './store.js';

/**
 * What every send (mail, push, webhook attempt) is given, once, by the engine (engine.ts): the
 * stores, the mailer, the keys, the claims, and the settings of the webhook dispatcher.
 */
export interface Delivery {
  cols: Collections;
  outbox: Collection<OutboxDoc>;
  mailer: Mailer | null;
  keys: () => Promise<ServiceKeys>;
  /** Each send (mail, push, webhook attempt) is claimed first: two processes never both send it. */
  claims: Claims;
  log: Logger;
  clock: () => Date;
  /** A link into the web app: at the address the request came to when that is trusted, else at PUBLIC_URL. */
  link: (path: string, origin?: string) => string;
  /** NOTIFY_ALLOW_PRIVATE_HOSTS: webhook and push targets may be private addresses (on-prem). */
  allowPrivateHosts: boolean;
  vapidSubject: string;
  timeoutMs: number;
  /** First retry delay of a webhook delivery (doubling, with jitter). */
  retryBaseMs: number;
  /** Retries go on this long after the first attempt, then the delivery is failed. */
  retryForMs: number;
  /** A webhook failing for this long is disabled. */
  disableAfterMs: number;
  /** How often due deliveries are looked for when nothing wakes the dispatcher. */
  pollMs: number;
  /** Wakes the webhook dispatcher (while it waits) when a delivery is queued. */
  dispatcher: { wake: (() => void) | null };
}

/**
 * On a stop (`signal` aborted) no new send starts: the message is left unacknowledged (Stopping)
 * and handled again by the next owner, whose records show what was already sent. A send already
 * on the wire (SMTP, a push) is let finish — cut off, it might reach the person and then be sent
 * again — and its waits are bounded (mailer timeouts, `webhookTimeoutMs`).
 */
export const notStopping = (signal?: AbortSignal) => {
  if (signal?.aborted) throw new Stopping();
};
