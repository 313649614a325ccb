import type { Collections } from '../store.js';

/** What this service keeps about a person, for their export (issue 30): notifications, preferences, webhooks (without their secrets), push subscriptions. */
export async function personalData(cols: Collections, userId: string) {
  const strip = <T extends Record<string, unknown>>(docs: T[], ...keys: string[]) => docs.map((d) => Object.fromEntries(Object.entries(d).filter(([k]) => !keys.includes(k))));
  return {
    notifications: await cols.inApp.find({ where: { user_id: userId }, orderBy: [{ field: 'created_at' }] }),
    preferences: (await cols.preferences.get(userId))?.preferences ?? null,
    webhooks: strip(await cols.webhooks.find({ where: { user_id: userId } }), 'secret'),
    push_subscriptions: strip(await cols.pushSubscriptions.find({ where: { user_id: userId } }), 'p256dh', 'auth'),
  };
}
