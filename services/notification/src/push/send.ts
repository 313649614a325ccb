import webPush from 'web-push';
import type { Lang } from '@baret/platform';
import { notStopping, type Delivery } from '../delivery.js';
import { noticeText, type Notice } from '../notices.js';
import { safeFetch } from '../safeHttp.js';

/** Web push to every subscription of the user; a subscription the push service says is gone is removed. */
export async function push(d: Delivery, notice: Notice, lang: Lang, signal?: AbortSignal): Promise<void> {
  const { cols, log, clock } = d;
  const subs = await cols.pushSubscriptions.find({ where: { user_id: notice.userId } });
  if (subs.length === 0) return;
  const keys = await d.keys();
  const { title, body } = noticeText(notice, lang);
  const payload = JSON.stringify({ job_id: notice.jobId, kind: notice.kind, title, body, url: notice.path });
  for (const sub of subs) {
    const logId = `${notice.eventId}:${sub.id}`;
    if (await cols.pushLog.get(logId)) continue;
    notStopping(signal);
    await d.claims.claimOrWait(`push:${logId}`);
    if (await cols.pushLog.get(logId)) continue;
    let status = 0;
    try {
      const details = webPush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
        vapidDetails: { subject: d.vapidSubject, publicKey: keys.vapid.publicKey, privateKey: keys.vapid.privateKey },
        TTL: 24 * 3600,
        contentEncoding: 'aes128gcm',
      });
      const headers = Object.fromEntries(Object.entries(details.headers).filter(([k]) => k.toLowerCase() !== 'content-length').map(([k, v]) => [k, String(v)]));
      const res = await safeFetch(details.endpoint, { method: 'POST', headers, body: details.body ?? Buffer.alloc(0), timeoutMs: d.timeoutMs, allowPrivate: d.allowPrivateHosts, maxRedirects: 0 });
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
