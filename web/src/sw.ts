/**
 * Baret's service worker (built by vite-plugin-pwa, injectManifest).
 *  - Precaches the app shell, so every page opens offline after one online visit.
 *  - Navigations get index.html (the SPA decides the route), never API paths.
 *  - A new version waits until the page asks it to take over (the update prompt).
 *  - Background Sync "baret-upload-queue": when connectivity returns, the open app is told to
 *    replay its upload queue (the queue and the resumable upload live in the page, see
 *    features/offline). Without Background Sync the page replays on `online` and at start.
 */
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

import { API_PATH_PATTERN, REPLAY_MESSAGE, SKIP_WAITING_MESSAGE, SYNC_TAG } from '@/features/analyze/offline/constants';

/** The few service-worker globals used here (the DOM and WebWorker libs cannot share one program). */
interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface SyncEventLike extends ExtendableEventLike {
  readonly tag: string;
}
interface ClientLike {
  postMessage(message: unknown): void;
}
declare global {
  interface Window {
    /** The precache list, injected at build by vite-plugin-pwa (it looks for this exact name). */
    __WB_MANIFEST: Array<PrecacheEntry | string>;
  }
}
interface ServiceWorkerScope {
  skipWaiting(): Promise<void>;
  clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<ClientLike[]>; claim(): Promise<void> };
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  addEventListener(type: 'sync', listener: (event: SyncEventLike) => void): void;
  addEventListener(type: 'activate', listener: (event: ExtendableEventLike) => void): void;
}

const sw = self as unknown as ServiceWorkerScope;

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [API_PATH_PATTERN] }));

sw.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === SKIP_WAITING_MESSAGE) void sw.skipWaiting();
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(sw.clients.claim());
});

sw.addEventListener('sync', (event) => {
  if (event.tag !== SYNC_TAG) return;
  event.waitUntil(
    sw.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      for (const client of windows) client.postMessage({ type: REPLAY_MESSAGE });
      // No app open: fail, so the browser tries the sync again later; the next app start replays too.
      if (windows.length === 0) throw new Error('no open window to upload from');
    }),
  );
});
