import type { DecodedEnvelope, Lang } from '@baret/platform';
import type { Delivery } from './delivery.js';
import { composeMail, unsubscribeToken } from './email.js';
import { noticeOf, noticeText, type Notice } from './notices.js';
import { managersOf } from './orgs/members.js';
import { mail } from './outbox/mail.js';
import { push } from './push/send.js';
import { preferencesOf, type RecipientDoc } from './store.js';
import { enqueueWebhooks } from './webhooks/queue.js';

/**
 * A job or quota event: at least once from the bus, exactly once to the person. An event handled
 * to the end is marked; one cut off half-way is handled again, and each channel's own record
 * (in-app item, delivery, push log, outbox) keeps what was already sent from being sent twice.
 * `signal`: the service is stopping — no new send starts, the event is left unacknowledged.
 */
export async function handleEvent(d: Delivery, event: DecodedEnvelope, signal?: AbortSignal): Promise<void> {
  const { cols, clock } = d;
  const notice = noticeOf(event);
  if (!notice) return;
  if (await cols.handled.get(event.id)) return;
  for (const userId of await recipientsOf(d, notice)) await notify(d, { ...notice, userId, path: pathFor(notice, userId) }, signal);
  await cols.handled.put(event.id, { id: event.id, type: event.type, handled_at: clock().toISOString() });
}

/**
 * Where a notice takes its reader: a manager told of a crew member's finished job with violations
 * goes straight to its review (issue 53: `#review` on the job's page); everyone else to the page itself.
 */
function pathFor(notice: Notice, userId: string): string {
  const review = notice.kind === 'report_ready' && notice.webhookEvent === 'job.completed' && typeof notice.data.org_id === 'string' && userId !== notice.userId && Number(notice.data.violation_count) > 0;
  return review ? `${notice.path}#review` : notice.path;
}

/**
 * Who is told of a notice: the job's owner and the managers of the job's organisation; for an
 * organisation's quota, its managers. Each person once, even a manager who owns the job.
 */
async function recipientsOf(d: Delivery, notice: Notice): Promise<string[]> {
  const people = new Set<string>();
  const orgAccount = /^org_(.+)$/.exec(notice.userId)?.[1];
  if (!orgAccount) people.add(notice.userId);
  const orgId = orgAccount ?? (typeof notice.data.org_id === 'string' && notice.data.org_id ? notice.data.org_id : null);
  if (orgId) for (const m of await managersOf(d.cols, orgId)) people.add(m);
  return [...people];
}

/** Everything a notice sends, each channel at most once per event and person. */
export async function notify(d: Delivery, notice: Notice, signal?: AbortSignal): Promise<void> {
  const { cols } = d;
  const recipient: RecipientDoc | null = await cols.recipients.get(notice.userId);
  if (recipient?.deleted) return;
  const lang: Lang = recipient?.language ?? 'tr';
  const prefs = await preferencesOf(cols.preferences, notice.userId);
  const wants = (channel: 'email' | 'push' | 'in_app') => notice.kind === 'webhook_disabled' ? channel !== 'push' : prefs[notice.kind][channel];

  if (notice.webhookOnly) {
    await enqueueWebhooks(d, notice);
    return;
  }
  const inAppId = `${notice.eventId}:${notice.userId}`;
  if (wants('in_app') && !(await cols.inApp.get(inAppId))) {
    // insert: a copy written again by another process would undo a read mark
    await cols.inApp.insert(inAppId, { id: inAppId, user_id: notice.userId, kind: notice.kind, job_id: notice.jobId, path: notice.path, data: notice.data, created_at: notice.createdAt, read_at: null });
  }
  await enqueueWebhooks(d, notice);
  if (wants('email')) await email(d, notice, recipient, lang, signal);
  if (wants('push')) await push(d, notice, lang, signal);
}

/** A notice's e-mail, with a one-click unsubscribe link (except for a disabled webhook's). */
async function email(d: Delivery, notice: Notice, recipient: RecipientDoc | null, lang: Lang, signal?: AbortSignal): Promise<void> {
  const { link } = d;
  if (!recipient) {
    d.log.warn({ user_id: notice.userId, event_id: notice.eventId }, 'no address known for this user: e-mail not sent');
    return;
  }
  const { title, body } = noticeText(notice, lang);
  // At the address the person uses, when known and trusted (issue 54), else PUBLIC_URL.
  const at = recipient.origin;
  const unsubscribe = notice.kind === 'webhook_disabled' ? undefined : link(`/notifications/unsubscribe?token=${unsubscribeToken((await d.keys()).unsubscribeSecret, notice.userId, notice.kind)}`, at);
  const composed = composeMail(lang, { name: recipient.full_name, title, body, link: link(notice.path, at), unsubscribe });
  await mail(d, `${notice.eventId}:${notice.userId}:email`, notice.kind, notice.userId, {
    to: recipient.email,
    ...composed,
    ...(unsubscribe ? { headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } } : {}),
  }, signal);
}
