import { createHash } from 'node:crypto';
import type { Delivery } from '../delivery.js';
import type { Notice } from '../notices.js';

/** A name-based UUID: the same input always gives the same id (a delivery's id from its event and webhook). */
export function stableUuid(name: string): string {
  const h = createHash('sha256').update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Webhook deliveries for a notice: one per matching webhook, its id fixed by the event and the webhook. */
export async function enqueueWebhooks(d: Delivery, notice: Notice): Promise<void> {
  const { cols, clock } = d;
  if (!notice.webhookEvent) return;
  const hooks = (await cols.webhooks.find({ where: { user_id: notice.userId, disabled_at: null } })).filter((h) => h.events.includes(notice.webhookEvent!));
  let queued = 0;
  for (const hook of hooks) {
    const id = stableUuid(`baret:delivery:${notice.eventId}:${hook.id}`);
    if (await cols.deliveries.get(id)) continue;
    const now = clock().toISOString();
    const body = JSON.stringify({ id, event: notice.webhookEvent, created_at: notice.createdAt, data: { ...notice.data, url: d.link(notice.path) } });
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
  if (queued > 0) d.dispatcher.wake?.();
}
