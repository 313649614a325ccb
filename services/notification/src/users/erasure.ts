import type { Collection } from '@baret/platform';
import type { Collections, OutboxDoc } from '../store.js';

/**
 * Erasure (issue 30): nothing of the person stays here — a tombstone without address or name
 * keeps a redelivered user_registered from bringing them back.
 */
export async function eraseUser(deps: { cols: Collections; outbox: Collection<OutboxDoc> }, userId: string): Promise<void> {
  const { cols, outbox } = deps;
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
}
