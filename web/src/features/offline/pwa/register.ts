import { Workbox } from 'workbox-window';

type Listener = () => void;

/** The service worker registration, and a new version waiting to take over. */
let workbox: Workbox | null = null;
let updateWaiting = false;
const listeners = new Set<Listener>();
const notify = () => listeners.forEach((l) => l());

export const isUpdateWaiting = (): boolean => updateWaiting;
export function subscribeUpdate(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Registers /sw.js in production builds; a waiting new version shows the update prompt. */
export function registerServiceWorker(): void {
  if (workbox || !import.meta.env.PROD || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  workbox = new Workbox('/sw.js', { scope: '/' });
  workbox.addEventListener('waiting', () => {
    updateWaiting = true;
    notify();
  });
  // The new version took over (after "update"): load it.
  workbox.addEventListener('controlling', (event) => {
    if (event.isUpdate) window.location.reload();
  });
  void workbox.register().catch(() => undefined);
}

/** The user accepted the update: the waiting service worker activates and the page reloads. */
export function applyUpdate(): void {
  updateWaiting = false;
  notify();
  workbox?.messageSkipWaiting();
}

export function dismissUpdate(): void {
  updateWaiting = false;
  notify();
}
