import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';

/** In-app notifications, preferences and Web Push (issue 29; docs/api.md "Notifications"). */
export type NoticeKind = 'report_ready' | 'analysis_failed' | 'quota';
export type Channel = 'email' | 'push' | 'in_app';
export const NOTICE_KINDS: readonly NoticeKind[] = ['report_ready', 'analysis_failed', 'quota'];
export const CHANNELS: readonly Channel[] = ['email', 'push', 'in_app'];

export interface AppNotification {
  id: string;
  kind: NoticeKind | 'webhook_disabled';
  title: string;
  body: string;
  job_id: string | null;
  url: string;
  read: boolean;
  created_at: string;
}
export type Preferences = Record<NoticeKind, Record<Channel, boolean>>;
export interface PreferencesAnswer {
  preferences: Preferences;
  language: 'tr' | 'en';
}

export const notificationsKey = ['notifications'] as const;

/** GET /notifications, every 30 s while the app is open (and in the language the app asks in). */
export function useNotifications(enabled = true) {
  return useQuery({
    queryKey: notificationsKey,
    queryFn: () => api.get<{ unread: number; items: AppNotification[] }>('/notifications', { query: { limit: 20 } }),
    refetchInterval: 30_000,
    enabled,
  });
}

export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.post<void>(`/notifications/${encodeURIComponent(id)}/read`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationsKey }),
  });
}

export function useMarkAllRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ updated: number }>('/notifications/read-all'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationsKey }),
  });
}

const preferencesKey = ['notification-preferences'] as const;

export function usePreferences() {
  return useQuery({ queryKey: preferencesKey, queryFn: () => api.get<PreferencesAnswer>('/notifications/preferences') });
}

export function useUpdatePreferences() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { preferences?: Partial<Record<NoticeKind, Partial<Record<Channel, boolean>>>>; language?: 'tr' | 'en' }) =>
      api.put<PreferencesAnswer>('/notifications/preferences', body),
    onSuccess: (data) => queryClient.setQueryData(preferencesKey, data),
  });
}

/** Whether this browser can receive Web Push at all. */
export function pushSupported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(b64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** This browser's push subscription, if any. */
export async function currentPushSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration();
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** Asks permission, subscribes with the server's VAPID key and registers the subscription. */
export async function enablePush(): Promise<boolean> {
  if (!pushSupported()) return false;
  if ((await Notification.requestPermission()) !== 'granted') return false;
  const registration = await navigator.serviceWorker.ready;
  const { key } = await api.get<{ key: string }>('/push/vapid-public-key');
  const subscribe = () => registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  const subscription = (await registration.pushManager.getSubscription()) ?? (await subscribe());
  try {
    await api.post('/push/subscriptions', subscription.toJSON());
  } catch (e) {
    // Another account registered this browser's subscription (someone used Baret here before):
    // the server never moves it, so this browser takes a new one (a new endpoint) for this account.
    if (!(e instanceof ApiError && e.code === 'push_endpoint_taken')) throw e;
    await subscription.unsubscribe();
    await api.post('/push/subscriptions', (await subscribe()).toJSON());
  }
  return true;
}

/** Stops push to this browser: the server forgets the endpoint, the browser the subscription. */
export async function disablePush(): Promise<void> {
  const subscription = await currentPushSubscription();
  if (!subscription) return;
  await api.delete('/push/subscriptions', { body: { endpoint: subscription.endpoint } });
  await subscription.unsubscribe();
}
