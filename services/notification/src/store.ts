import { randomBytes } from 'node:crypto';
import webPush from 'web-push';
import type { Collection, DocumentStore, Lang } from '@baret/platform';
import type { ClaimDoc } from './claims.js';
import { CHANNELS, NOTICE_KINDS, type Channel, type NoticeKind, type WebhookEvent } from './notices.js';

/** The notification service's own copy of who users are (from user-events): where and in which language to write. */
export interface RecipientDoc extends Record<string, unknown> {
  id: string;
  email: string;
  full_name: string | null;
  language: Lang;
  deleted: boolean;
  /**
   * The web address the person last asked for an account mail from (sign-up, a new link), when
   * PUBLIC_URL is unset: their other mails link there too, not to localhost (issue 54).
   */
  origin?: string;
}

export type Preferences = Record<NoticeKind, Record<Channel, boolean>>;
export interface PreferencesDoc extends Record<string, unknown> {
  id: string;
  preferences: Preferences;
}

/** Defaults: every kind on every channel, except quota e-mails. */
export const defaultPreferences = (): Preferences =>
  Object.fromEntries(NOTICE_KINDS.map((k) => [k, Object.fromEntries(CHANNELS.map((c) => [c, !(k === 'quota' && c === 'email')]))])) as Preferences;

/** An in-app notification (the bell). Texts are rendered in the reader's language when listed. */
export interface InAppDoc extends Record<string, unknown> {
  id: string;
  user_id: string;
  kind: NoticeKind | 'webhook_disabled';
  job_id: string | null;
  path: string;
  data: Record<string, string | number | null>;
  created_at: string;
  read_at: string | null;
}

/** Events already handled to the end: a redelivered or replayed event is skipped at once. */
export interface HandledEventDoc extends Record<string, unknown> {
  id: string;
  type: string;
  handled_at: string;
}

/** One push sent to one subscription for one event (so a redelivered event pushes no second time). */
export interface PushLogDoc extends Record<string, unknown> {
  id: string;
  subscription_id: string;
  status: number;
  at: string;
}

export interface PushSubscriptionDoc extends Record<string, unknown> {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string;
}

export interface WebhookDoc extends Record<string, unknown> {
  id: string;
  user_id: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
  created_at: string;
  disabled_at: string | null;
  /** When the current run of failed attempts began (null while it delivers). */
  failing_since: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export interface DeliveryDoc extends Record<string, unknown> {
  id: string;
  webhook_id: string;
  user_id: string;
  event: WebhookEvent;
  /** The exact JSON body sent (and signed) on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** Who belongs to which organisation and with which role (from org-events): managers are told of their members' jobs. */
export interface OrgMemberDoc extends Record<string, unknown> {
  /** The user's id. */
  id: string;
  org_id: string;
  role: 'manager' | 'member';
}

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

interface KeyDoc extends Record<string, unknown> {
  id: string;
  value: Record<string, string>;
}

export const C = {
  recipients: 'notification_recipients',
  preferences: 'notification_preferences',
  inApp: 'notification_in_app',
  handled: 'notification_handled_events',
  pushLog: 'notification_push_log',
  pushSubscriptions: 'notification_push_subscriptions',
  webhooks: 'notification_webhooks',
  deliveries: 'notification_webhook_deliveries',
  keys: 'notification_keys',
  orgMembers: 'notification_org_members',
  claims: 'notification_claims',
} as const;

export function collections(documents: DocumentStore) {
  return {
    recipients: documents.collection<RecipientDoc>(C.recipients),
    preferences: documents.collection<PreferencesDoc>(C.preferences),
    inApp: documents.collection<InAppDoc>(C.inApp),
    handled: documents.collection<HandledEventDoc>(C.handled),
    pushLog: documents.collection<PushLogDoc>(C.pushLog),
    pushSubscriptions: documents.collection<PushSubscriptionDoc>(C.pushSubscriptions),
    webhooks: documents.collection<WebhookDoc>(C.webhooks),
    deliveries: documents.collection<DeliveryDoc>(C.deliveries),
    keys: documents.collection<KeyDoc>(C.keys),
    orgMembers: documents.collection<OrgMemberDoc>(C.orgMembers),
    claims: documents.collection<ClaimDoc>(C.claims),
  };
}
export type Collections = ReturnType<typeof collections>;

export async function preferencesOf(prefs: Collection<PreferencesDoc>, userId: string): Promise<Preferences> {
  const doc = await prefs.get(userId);
  const defaults = defaultPreferences();
  if (!doc) return defaults;
  for (const k of NOTICE_KINDS) for (const c of CHANNELS) if (typeof doc.preferences[k]?.[c] === 'boolean') defaults[k][c] = doc.preferences[k][c];
  return defaults;
}

export interface ServiceKeys {
  vapid: { publicKey: string; privateKey: string };
  unsubscribeSecret: string;
}

/**
 * The VAPID key pair and the unsubscribe secret: made at the first start and kept in the
 * service's store, so push subscriptions and mailed links stay valid across restarts. Two
 * processes starting at once for the very first time may each make one; the one read back is
 * used by both from then on. A pair given by the operator (VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY, from
 * a secret) is used instead of the stored one.
 */
export async function loadKeys(keys: Collection<KeyDoc>, pinned?: { publicKey: string; privateKey: string }): Promise<ServiceKeys> {
  let vapid = pinned ? { id: 'vapid', value: pinned } : await keys.get('vapid');
  if (!vapid) {
    const pair = webPush.generateVAPIDKeys();
    await keys.put('vapid', { id: 'vapid', value: { publicKey: pair.publicKey, privateKey: pair.privateKey } });
    vapid = await keys.get('vapid');
  }
  let unsub = await keys.get('unsubscribe');
  if (!unsub) {
    await keys.put('unsubscribe', { id: 'unsubscribe', value: { secret: randomBytes(32).toString('base64url') } });
    unsub = await keys.get('unsubscribe');
  }
  return {
    vapid: { publicKey: vapid!.value.publicKey!, privateKey: vapid!.value.privateKey! },
    unsubscribeSecret: unsub!.value.secret!,
  };
}
