import { createHash, createHmac } from 'node:crypto';
import webPush from 'web-push';
import type { Collection, DecodedEnvelope, Lang } from '@baret/platform';
import type { Logger } from 'pino';
import { Stopping, type Claims } from './claims.js';
import { composeMail, unsubscribeToken } from './email.js';
import type { Mailer, OutgoingMail } from './mailer.js';
import { noticeOf, noticeText, type Notice, type NoticeKind } from './notices.js';
import { managersOf } from './orgs.js';
import { safeFetch } from './safeHttp.js';
import { preferencesOf, type Collections, type DeliveryDoc, type RecipientDoc, type ServiceKeys, type WebhookDoc } from './store.js';

/** A mail as stored in the outbox: what was sent (or, without SMTP, what would have been). */
export interface OutboxDoc extends Record<string, unknown> {
  id: string;
  kind: 'contact' | 'upgrade_request' | NoticeKind | 'webhook_disabled' | 'password_reset' | 'email_verification' | 'org_invite';
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  reply_to: string | null;
  user_id?: string | null;
  channel: 'smtp' | 'log';
  created_at: string;
}

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

/** A name-based UUID: the same input always gives the same id (a delivery's id from its event and webhook). */
export function stableUuid(name: string): string {
  const h = createHash('sha256').update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** `Baret-Signature` for a body sent at unix second `t`: HMAC-SHA256 of "<t>.<body>" in hex. */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** Delay before retry number `attempt` (1 = the first retry): base·2^(attempt−1), at most 1 h, with jitter in [½, 1]. */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), HOUR);
  return Math.round(full * (0.5 + random() * 0.5));
}

export function createEngine(o: EngineOptions) {
  const { cols, log, clock } = o;
  const retryBase = o.retryBaseMs ?? 30_000;
  const retryFor = o.retryForMs ?? 24 * HOUR;
  const disableAfter = o.disableAfterMs ?? 72 * HOUR;
  const timeoutMs = o.webhookTimeoutMs ?? 10_000;
  /** A link into the web app: at the address the request came to when that is trusted, else at PUBLIC_URL. */
  const link = (path: string, origin?: string) => `${(origin && o.trustedOrigin?.(origin) ? origin : o.publicUrl).replace(/\/$/, '')}${path}`;
  let wake: (() => void) | null = null;
  const kick = () => wake?.();

  /**
   * On a stop (`signal` aborted) no new send starts: the message is left unacknowledged (Stopping)
   * and handled again by the next owner, whose records show what was already sent. A send already
   * on the wire (SMTP, a push) is let finish — cut off, it might reach the person and then be sent
   * again — and its waits are bounded (mailer timeouts, `webhookTimeoutMs`).
   */
  const notStopping = (signal?: AbortSignal) => {
    if (signal?.aborted) throw new Stopping();
  };

  async function mail(id: string, kind: OutboxDoc['kind'], userId: string | null, message: OutgoingMail, signal?: AbortSignal): Promise<boolean> {
    if (await o.outbox.get(id)) return false;
    notStopping(signal);
    // Only one process sends it; a holder that died is taken over when its lease ends.
    await o.claims.claimOrWait(`mail:${id}`);
    if (await o.outbox.get(id)) return false;
    if (o.mailer) await o.mailer.send({ ...message, messageId: `<${id.replace(/[^a-zA-Z0-9.-]/g, '.')}@baret>` });
    await o.outbox.put(id, {
      id,
      kind,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html ?? null,
      reply_to: message.replyTo ?? null,
      user_id: userId,
      channel: o.mailer ? 'smtp' : 'log',
      created_at: clock().toISOString(),
    });
    log.info({ notification_id: id, kind, channel: o.mailer ? 'smtp' : 'log' }, 'mail sent');
    return true;
  }

  /** Web push to every subscription of the user; a subscription the push service says is gone is removed. */
  async function push(notice: Notice, lang: Lang, signal?: AbortSignal): Promise<void> {
    const subs = await cols.pushSubscriptions.find({ where: { user_id: notice.userId } });
    if (subs.length === 0) return;
    const keys = await o.keys();
    const { title, body } = noticeText(notice, lang);
    const payload = JSON.stringify({ job_id: notice.jobId, kind: notice.kind, title, body, url: notice.path });
    for (const sub of subs) {
      const logId = `${notice.eventId}:${sub.id}`;
      if (await cols.pushLog.get(logId)) continue;
      notStopping(signal);
      await o.claims.claimOrWait(`push:${logId}`);
      if (await cols.pushLog.get(logId)) continue;
      let status = 0;
      try {
        const details = webPush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
          vapidDetails: { subject: o.vapidSubject, publicKey: keys.vapid.publicKey, privateKey: keys.vapid.privateKey },
          TTL: 24 * 3600,
          contentEncoding: 'aes128gcm',
        });
        const headers = Object.fromEntries(Object.entries(details.headers).filter(([k]) => k.toLowerCase() !== 'content-length').map(([k, v]) => [k, String(v)]));
        const res = await safeFetch(details.endpoint, { method: 'POST', headers, body: details.body ?? Buffer.alloc(0), timeoutMs, allowPrivate: o.allowPrivateHosts, maxRedirects: 0 });
        status = res.status;
        if (status === 404 || status === 410) {
          await cols.pushSubscriptions.delete(sub.id);
          log.info({ subscription_id: sub.id, status }, 'push subscription expired: removed');
        } else if (status < 200 || status >= 300) log.warn({ subscription_id: sub.id, status }, 'push not accepted');
      } catch (err) {
        log.warn({ err: (err as Error).message, subscription_id: sub.id }, 'push failed');
      }
      await cols.pushLog.put(logId, { id: logId, subscription_id: sub.id, status, at: clock().toISOString() });
    }
  }

  /** Webhook deliveries for a notice: one per matching webhook, its id fixed by the event and the webhook. */
  async function enqueueWebhooks(notice: Notice): Promise<void> {
    if (!notice.webhookEvent) return;
    const hooks = (await cols.webhooks.find({ where: { user_id: notice.userId, disabled_at: null } })).filter((h) => h.events.includes(notice.webhookEvent!));
    let queued = 0;
    for (const hook of hooks) {
      const id = stableUuid(`baret:delivery:${notice.eventId}:${hook.id}`);
      if (await cols.deliveries.get(id)) continue;
      const now = clock().toISOString();
      const body = JSON.stringify({ id, event: notice.webhookEvent, created_at: notice.createdAt, data: { ...notice.data, url: link(notice.path) } });
      // insert: of two processes handling the event, one queues it (the other's copy would reset its state)
      const inserted = await cols.deliveries.insert(id, {
        id,
        webhook_id: hook.id,
        user_id: notice.userId,
        event: notice.webhookEvent,
        body,
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        next_attempt_at: now,
        created_at: now,
        delivered_at: null,
      });
      if (inserted) queued++;
    }
    if (queued > 0) kick();
  }

  /** Everything a notice sends, each channel at most once per event and person. */
  async function notify(notice: Notice, signal?: AbortSignal): Promise<void> {
    const recipient: RecipientDoc | null = await cols.recipients.get(notice.userId);
    if (recipient?.deleted) return;
    const lang: Lang = recipient?.language ?? 'tr';
    const prefs = await preferencesOf(cols.preferences, notice.userId);
    const wants = (channel: 'email' | 'push' | 'in_app') => notice.kind === 'webhook_disabled' ? channel !== 'push' : prefs[notice.kind][channel];

    const inAppId = `${notice.eventId}:${notice.userId}`;
    if (wants('in_app') && !(await cols.inApp.get(inAppId))) {
      // insert: a copy written again by another process would undo a read mark
      await cols.inApp.insert(inAppId, { id: inAppId, user_id: notice.userId, kind: notice.kind, job_id: notice.jobId, path: notice.path, data: notice.data, created_at: notice.createdAt, read_at: null });
    }
    await enqueueWebhooks(notice);
    if (wants('email')) await email(notice, recipient, lang, signal);
    if (wants('push')) await push(notice, lang, signal);
  }

  async function email(notice: Notice, recipient: RecipientDoc | null, lang: Lang, signal?: AbortSignal): Promise<void> {
    if (!recipient) {
      log.warn({ user_id: notice.userId, event_id: notice.eventId }, 'no address known for this user: e-mail not sent');
      return;
    }
    const { title, body } = noticeText(notice, lang);
    // At the address the person uses, when known and trusted (issue 54), else PUBLIC_URL.
    const at = recipient.origin;
    const unsubscribe = notice.kind === 'webhook_disabled' ? undefined : link(`/notifications/unsubscribe?token=${unsubscribeToken((await o.keys()).unsubscribeSecret, notice.userId, notice.kind)}`, at);
    const composed = composeMail(lang, { name: recipient.full_name, title, body, link: link(notice.path, at), unsubscribe });
    await mail(`${notice.eventId}:${notice.userId}:email`, notice.kind, notice.userId, {
      to: recipient.email,
      ...composed,
      ...(unsubscribe ? { headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } } : {}),
    }, signal);
  }

  /**
   * Who is told of a notice: the job's owner and the managers of the job's organisation; for an
   * organisation's quota, its managers. Each person once, even a manager who owns the job.
   */
  async function recipientsOf(notice: Notice): Promise<string[]> {
    const people = new Set<string>();
    const orgAccount = /^org_(.+)$/.exec(notice.userId)?.[1];
    if (!orgAccount) people.add(notice.userId);
    const orgId = orgAccount ?? (typeof notice.data.org_id === 'string' && notice.data.org_id ? notice.data.org_id : null);
    if (orgId) for (const m of await managersOf(cols, orgId)) people.add(m);
    return [...people];
  }

  /**
   * A job or quota event: at least once from the bus, exactly once to the person. An event handled
   * to the end is marked; one cut off half-way is handled again, and each channel's own record
   * (in-app item, delivery, push log, outbox) keeps what was already sent from being sent twice.
   * `signal`: the service is stopping — no new send starts, the event is left unacknowledged.
   */
  async function handleEvent(event: DecodedEnvelope, signal?: AbortSignal): Promise<void> {
    const notice = noticeOf(event);
    if (!notice) return;
    if (await cols.handled.get(event.id)) return;
    for (const userId of await recipientsOf(notice)) await notify({ ...notice, userId }, signal);
    await cols.handled.put(event.id, { id: event.id, type: event.type, handled_at: clock().toISOString() });
  }

  async function disable(hook: WebhookDoc, now: Date): Promise<void> {
    const at = now.toISOString();
    await cols.webhooks.put(hook.id, { ...hook, disabled_at: at });
    for (const d of await cols.deliveries.find({ where: { webhook_id: hook.id, status: 'pending' } })) {
      await cols.deliveries.put(d.id, { ...d, status: 'failed', next_attempt_at: null, last_error: 'webhook disabled' });
    }
    log.warn({ webhook_id: hook.id }, 'webhook disabled after 3 days of failures');
    await notify({
      eventId: `webhook-disabled:${hook.id}:${at}`,
      userId: hook.user_id,
      kind: 'webhook_disabled',
      webhookEvent: null,
      jobId: null,
      path: '/dashboard/profile',
      data: { url: hook.url, webhook_id: hook.id },
      createdAt: at,
    });
  }

  /**
   * One attempt of a delivery: signed POST, then delivered, a retry scheduled, or failed. Each
   * attempt (by its number) is claimed first, and the delivery read again: of two processes that
   * found it due, one sends; the other finds it claimed, or already moved on, and leaves it.
   * A stop (`signal`) cuts the request off: the attempt is not counted and its claim given up, so
   * another process (or this one restarted) makes it at once, with the same `Baret-Delivery` id.
   */
  async function attempt(due: DeliveryDoc, signal?: AbortSignal): Promise<void> {
    const claim = `webhook:${due.id}:${due.attempts + 1}`;
    if (signal?.aborted || !(await o.claims.claim(claim))) return;
    const d = await cols.deliveries.get(due.id);
    if (!d || d.status !== 'pending' || d.attempts !== due.attempts || (d.next_attempt_at ?? '') > clock().toISOString()) return;
    const hook = await cols.webhooks.get(d.webhook_id);
    if (!hook || hook.disabled_at) {
      await cols.deliveries.put(d.id, { ...d, status: 'failed', next_attempt_at: null, last_error: hook ? 'webhook disabled' : 'webhook deleted' });
      return;
    }
    const t = Math.floor(Date.now() / 1000);
    let code: number | null = null;
    let error: string | null = null;
    try {
      const res = await safeFetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Baret-Webhooks/1',
          'Baret-Event': d.event,
          'Baret-Delivery': d.id,
          'Baret-Signature': signatureHeader(hook.secret, t, d.body),
        },
        body: d.body,
        timeoutMs,
        allowPrivate: o.allowPrivateHosts,
        signal,
      });
      code = res.status;
    } catch (err) {
      error = (err as Error).message;
    }
    if (signal?.aborted && code === null) {
      await o.claims.release(claim);
      log.info({ delivery_id: d.id, webhook_id: hook.id }, 'webhook attempt cut off by a stop: left for the next try');
      return;
    }
    const now = clock();
    const attempts = d.attempts + 1;
    if (code !== null && code >= 200 && code < 300) {
      await cols.deliveries.put(d.id, { ...d, status: 'delivered', attempts, last_status_code: code, last_error: null, next_attempt_at: null, delivered_at: now.toISOString() });
      if (hook.failing_since) await cols.webhooks.put(hook.id, { ...hook, failing_since: null });
      log.info({ delivery_id: d.id, webhook_id: hook.id, attempts }, 'webhook delivered');
      return;
    }
    error ??= `HTTP ${code}`;
    const expired = now.getTime() - Date.parse(d.created_at) >= retryFor;
    await cols.deliveries.put(d.id, {
      ...d,
      status: expired ? 'failed' : 'pending',
      attempts,
      last_status_code: code,
      last_error: error,
      next_attempt_at: expired ? null : new Date(now.getTime() + retryDelayMs(attempts, retryBase)).toISOString(),
    });
    log.info({ delivery_id: d.id, webhook_id: hook.id, attempts, status_code: code, error, failed: expired }, 'webhook delivery failed');
    const since = hook.failing_since ?? now.toISOString();
    if (now.getTime() - Date.parse(since) >= disableAfter) await disable(hook, now);
    else if (!hook.failing_since) await cols.webhooks.put(hook.id, { ...hook, failing_since: since });
  }

  /** Delivers due webhook deliveries until `signal` aborts; woken at once when a delivery is queued. */
  async function runDispatcher(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const due = await cols.deliveries.find({
        where: { status: 'pending', next_attempt_at: { $lte: clock().toISOString() } },
        orderBy: [{ field: 'next_attempt_at' }],
        limit: 20,
      });
      await Promise.all(due.map((d) => attempt(d, signal).catch((err: unknown) => log.error({ err, delivery_id: d.id }, 'webhook attempt failed'))));
      if (due.length > 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, o.pollMs ?? 1000);
        function done() {
          clearTimeout(timer);
          wake = null;
          signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  return { handleEvent, notify, mail, runDispatcher, link };
}
export type Engine = ReturnType<typeof createEngine>;
