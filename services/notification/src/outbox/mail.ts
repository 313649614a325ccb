import { notStopping, type Delivery } from '../delivery.js';
import type { OutgoingMail } from '../mailer.js';
import type { OutboxDoc } from '../store.js';

/** Sends a mail once (by `id`) and keeps it in the outbox; false when it was sent already. */
export async function mail(d: Delivery, id: string, kind: OutboxDoc['kind'], userId: string | null, message: OutgoingMail, signal?: AbortSignal): Promise<boolean> {
  if (await d.outbox.get(id)) return false;
  notStopping(signal);
  // Only one process sends it; a holder that died is taken over when its lease ends.
  await d.claims.claimOrWait(`mail:${id}`);
  if (await d.outbox.get(id)) return false;
  if (d.mailer) await d.mailer.send({ ...message, messageId: `<${id.replace(/[^a-zA-Z0-9.-]/g, '.')}@baret>` });
  await d.outbox.put(id, {
    id,
    kind,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html ?? null,
    reply_to: message.replyTo ?? null,
    user_id: userId,
    channel: d.mailer ? 'smtp' : 'log',
    created_at: d.clock().toISOString(),
  });
  d.log.info({ notification_id: id, kind, channel: d.mailer ? 'smtp' : 'log' }, 'mail sent');
  return true;
}
