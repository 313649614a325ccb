import { SYNC_TAG } from '@/features/analyze/offline/constants';

interface SyncManagerLike {
  register(tag: string): Promise<void>;
}

/** Whether this browser has Background Sync (Chromium); Safari and Firefox do not. */
export function hasBackgroundSync(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'SyncManager' in window;
}

/**
 * Asks the service worker to wake the app when connectivity returns. Where Background Sync is
 * missing this does nothing: the app replays on the `online` event and at start instead.
 */
export async function requestBackgroundSync(): Promise<boolean> {
  if (!hasBackgroundSync()) return false;
  try {
    const registration = (await navigator.serviceWorker.getRegistration()) as (ServiceWorkerRegistration & { sync?: SyncManagerLike }) | undefined;
    if (!registration?.sync) return false;
    await registration.sync.register(SYNC_TAG);
    return true;
  } catch {
    return false;
  }
}
