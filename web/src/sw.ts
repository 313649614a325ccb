/**
 * Baret's service worker (built by vite-plugin-pwa, injectManifest).
 *  - Precaches the app shell, so every page opens offline after one online visit.
 *  - Navigations get index.html (the SPA decides the route), never API paths.
 *  - Nothing else is cached here: the API, the demo video and `/media/demo.json` go to the network.
 *    The precached index.html carries the server's `baret-demo-video` tag as it was when this
 *    version was installed, so the landing page of a page served from here asks `/media/demo.json`
 *    (features/landing/api/check-demo-video.ts): a demo video added later shows on the next load.
 *  - A new version waits until the page asks it to take over (the update prompt).
 *  - Background Sync "baret-upload-queue": when connectivity returns, the service worker uploads
 *    the queue itself (IndexedDB, a fetch tus client, the session the app mirrored there), with
 *    or without an open page, and tells open pages of each job created. A network failure fails
 *    the sync, so the browser tries again later. Without Background Sync (iOS Safari) the page
 *    replays on `online` and at start. Pages and the service worker share a Web Lock and claim
 *    each item in IndexedDB, so exactly one of them uploads it.
 */
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

import type { StartedJob } from '@/features/analyze/api/start-analysis';
import { API_PATH_PATTERN, JOB_CREATED_MESSAGE, SKIP_WAITING_MESSAGE, SW_REPLAY_MESSAGE, SYNC_TAG } from '@/features/analyze/offline/constants';
import type { QueuedUpload } from '@/features/analyze/offline/queue-db';
import { withQueueLock } from '@/features/analyze/offline/replay-core';
import { replayFromServiceWorker } from '@/features/analyze/offline/sw-replay';

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
interface ExtendableMessageEventLike extends ExtendableEventLike {
  readonly data: unknown;
}
interface PushEventLike extends ExtendableEventLike {
  readonly data: { json(): unknown } | null;
}
interface NotificationEventLike extends ExtendableEventLike {
  readonly notification: { data: unknown; close(): void };
}
interface WindowClientLike extends ClientLike {
  url: string;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
interface ServiceWorkerScope {
  location: { origin: string };
  skipWaiting(): Promise<void>;
  registration: { showNotification(title: string, options: { body: string; icon?: string; badge?: string; tag?: string; data?: unknown }): Promise<void> };
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<ClientLike[]>;
    claim(): Promise<void>;
    openWindow(url: string): Promise<unknown>;
  };
  addEventListener(type: 'message', listener: (event: ExtendableMessageEventLike) => void): void;
  addEventListener(type: 'sync', listener: (event: SyncEventLike) => void): void;
  addEventListener(type: 'activate', listener: (event: ExtendableEventLike) => void): void;
  addEventListener(type: 'push', listener: (event: PushEventLike) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEventLike) => void): void;
}

const sw = self as unknown as ServiceWorkerScope;

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [API_PATH_PATTERN] }));

/** Open pages hear of each job the queue created (history refreshes, the analysis page follows it). */
async function tellPages(job: StartedJob, item: QueuedUpload): Promise<void> {
  const pages = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const page of pages) page.postMessage({ type: JOB_CREATED_MESSAGE, job, item });
}

/** Uploads the queue from here; rejects when the network failed, so a sync is tried again later. */
async function replayHere(): Promise<void> {
  const jobs: Promise<void>[] = [];
  const pages = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const result = await withQueueLock(() =>
    replayFromServiceWorker({
      defaultApiBase: sw.location.origin,
      onJob: (job, item) => void jobs.push(tellPages(job, item)),
      noPageOpen: pages.length === 0,
    }),
  );
  await Promise.allSettled(jobs);
  if (result.networkFailed) throw new Error('upload queue: network failed, try again later');
}

sw.addEventListener('message', (event) => {
  const type = (event.data as { type?: string } | null)?.type;
  if (type === SKIP_WAITING_MESSAGE) void sw.skipWaiting();
  if (type === SW_REPLAY_MESSAGE) event.waitUntil(replayHere().catch(() => undefined));
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(sw.clients.claim());
});

sw.addEventListener('sync', (event) => {
  if (event.tag !== SYNC_TAG) return;
  event.waitUntil(replayHere());
});

/**
 * Web Push (issue 29): the server's payload is JSON {job_id, title, body, url} in the user's
 * language; it is shown as a notification, and a click opens (or focuses) the job's page.
 */
sw.addEventListener('push', (event) => {
  let payload: { title?: string; body?: string; url?: string; job_id?: string | null } = {};
  try {
    payload = (event.data?.json() ?? {}) as typeof payload;
  } catch {
    payload = {};
  }
  const url = typeof payload.url === 'string' && payload.url.startsWith('/') ? payload.url : '/dashboard';
  event.waitUntil(
    sw.registration.showNotification(payload.title ?? 'Baret', {
      body: payload.body ?? '',
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      tag: payload.job_id ?? undefined,
      data: { url },
    }),
  );
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL((event.notification.data as { url?: string } | null)?.url ?? '/dashboard', sw.location.origin).href;
  event.waitUntil(
    (async () => {
      const pages = (await sw.clients.matchAll({ type: 'window', includeUncontrolled: true })) as WindowClientLike[];
      const page = pages.find((p) => p.url.startsWith(sw.location.origin));
      if (page) {
        await page.navigate(target);
        await page.focus();
      } else await sw.clients.openWindow(target);
    })(),
  );
});
