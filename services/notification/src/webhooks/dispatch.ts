import { createHmac } from 'node:crypto';
import type { Delivery } from '../delivery.js';
import { notify } from '../notify.js';
import { safeFetch } from '../safeHttp.js';
import type { DeliveryDoc, WebhookDoc } from '../store.js';

const HOUR = 3600_000;

/** `Baret-Signature` for a body sent at unix second `t`: HMAC-SHA256 of "<t>.<body>" in hex. */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** Delay before retry number `attempt` (1 = the first retry): base·2^(attempt−1), at most 1 h, with jitter in [½, 1]. */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), HOUR);
  return Math.round(full * (0.5 + random() * 0.5));
}

/** Delivers due webhook deliveries until `signal` aborts; woken at once when a delivery is queued. */
export async function runDispatcher(d: Delivery, signal: AbortSignal): Promise<void> {
  const { cols, clock, log } = d;
  while (!signal.aborted) {
    const due = await cols.deliveries.find({
      where: { status: 'pending', next_attempt_at: { $lte: clock().toISOString() } },
      orderBy: [{ field: 'next_attempt_at' }],
      limit: 20,
    });
    await Promise.all(due.map((delivery) => attempt(d, delivery, signal).catch((err: unknown) => log.error({ err, delivery_id: delivery.id }, 'webhook attempt failed'))));
    if (due.length > 0) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, d.pollMs);
      function done() {
        clearTimeout(timer);
        d.dispatcher.wake = null;
        signal.removeEventListener('abort', done);
        resolve();
      }
      d.dispatcher.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * One attempt of a delivery: signed POST, then delivered, a retry scheduled, or failed. Each
 * attempt (by its number) is claimed first, and the delivery read again: of two processes that
 * found it due, one sends; the other finds it claimed, or already moved on, and leaves it.
 * A stop (`signal`) cuts the request off: the attempt is not counted and its claim given up, so
 * another process (or this one restarted) makes it at once, with the same `Baret-Delivery` id.
 */
async function attempt(dl: Delivery, due: DeliveryDoc, signal?: AbortSignal): Promise<void> {
  const { cols, clock, log } = dl;
  const claim = `webhook:${due.id}:${due.attempts + 1}`;
  if (signal?.aborted || !(await dl.claims.claim(claim))) return;
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
      timeoutMs: dl.timeoutMs,
      allowPrivate: dl.allowPrivateHosts,
      signal,
    });
    code = res.status;
  } catch (err) {
    error = (err as Error).message;
  }
  if (signal?.aborted && code === null) {
    await dl.claims.release(claim);
    log.info({ delivery_id: d.id, webhook_id: hook.id }, 'webhook attempt cut off by a stop: left for the next try');
    return;
  }
  await recordAttempt(dl, d, hook, code, error);
}

/** What an attempt answered: delivered, a retry scheduled, or failed; a webhook failing for too long is disabled. */
async function recordAttempt(dl: Delivery, d: DeliveryDoc, hook: WebhookDoc, code: number | null, error: string | null): Promise<void> {
  const { cols, clock, log } = dl;
  const now = clock();
  const attempts = d.attempts + 1;
  if (code !== null && code >= 200 && code < 300) {
    await cols.deliveries.put(d.id, { ...d, status: 'delivered', attempts, last_status_code: code, last_error: null, next_attempt_at: null, delivered_at: now.toISOString() });
    if (hook.failing_since) await cols.webhooks.put(hook.id, { ...hook, failing_since: null });
    log.info({ delivery_id: d.id, webhook_id: hook.id, attempts }, 'webhook delivered');
    return;
  }
  error ??= `HTTP ${code}`;
  const expired = now.getTime() - Date.parse(d.created_at) >= dl.retryForMs;
  await cols.deliveries.put(d.id, {
    ...d,
    status: expired ? 'failed' : 'pending',
    attempts,
    last_status_code: code,
    last_error: error,
    next_attempt_at: expired ? null : new Date(now.getTime() + retryDelayMs(attempts, dl.retryBaseMs)).toISOString(),
  });
  log.info({ delivery_id: d.id, webhook_id: hook.id, attempts, status_code: code, error, failed: expired }, 'webhook delivery failed');
  const since = hook.failing_since ?? now.toISOString();
  if (now.getTime() - Date.parse(since) >= dl.disableAfterMs) await disable(dl, hook, now);
  else if (!hook.failing_since) await cols.webhooks.put(hook.id, { ...hook, failing_since: since });
}

/** A webhook that failed for too long: disabled, its pending deliveries failed, its owner told. */
async function disable(dl: Delivery, hook: WebhookDoc, now: Date): Promise<void> {
  const { cols, log } = dl;
  const at = now.toISOString();
  await cols.webhooks.put(hook.id, { ...hook, disabled_at: at });
  for (const d of await cols.deliveries.find({ where: { webhook_id: hook.id, status: 'pending' } })) {
    await cols.deliveries.put(d.id, { ...d, status: 'failed', next_attempt_at: null, last_error: 'webhook disabled' });
  }
  log.warn({ webhook_id: hook.id }, 'webhook disabled after 3 days of failures');
  await notify(dl, {
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
