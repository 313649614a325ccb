/** Shared by the page and the service worker. */

/** Background Sync tag under which the upload queue asks to be replayed. */
export const SYNC_TAG = 'baret-upload-queue';
/** Service worker → page: connectivity is back, replay the queue. */
export const REPLAY_MESSAGE = 'BARET_REPLAY_UPLOADS';
/** Page → waiting service worker: take over now (the user accepted the update). */
export const SKIP_WAITING_MESSAGE = 'SKIP_WAITING';

/**
 * API paths: navigations to them are never answered with the app shell. Like the gateway's list,
 * except /contact, which is also a page of the app (the API there is POST only).
 */
export const API_PATH_PATTERN =
  /^\/(auth|admin|jobs|analyze|tasks|usage|docs|openapi|media|uploads|equipment|healthz|readyz)(\/|\.|$)/;
