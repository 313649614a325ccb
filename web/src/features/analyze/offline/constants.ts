/** Shared by the page and the service worker. */

/** Background Sync tag under which the upload queue asks to be replayed. */
export const SYNC_TAG = 'baret-upload-queue';
/** Service worker → page: connectivity is back, replay the queue. */
export const REPLAY_MESSAGE = 'BARET_REPLAY_UPLOADS';
/** Service worker → pages: a queued video became a job ({ type, job, item }). */
export const JOB_CREATED_MESSAGE = 'BARET_QUEUED_JOB_CREATED';
/** Page → service worker: upload the queue now (used by tests, and where a page wants the SW to do it). */
export const SW_REPLAY_MESSAGE = 'BARET_SW_REPLAY';
/** The Web Lock held by whoever replays the queue (pages and the service worker alike). */
export const QUEUE_LOCK = 'baret-upload-queue';
/** Page → waiting service worker: take over now (the user accepted the update). */
export const SKIP_WAITING_MESSAGE = 'SKIP_WAITING';

/**
 * API paths: navigations to them are never answered with the app shell. Like the gateway's list,
 * except /contact, which is also a page of the app (the API there is POST only).
 */
export const API_PATH_PATTERN =
  /^\/(auth|admin|jobs|analyze|tasks|usage|docs|openapi|media|uploads|equipment|healthz|readyz|notifications|webhooks|push)(\/|\.|$)/;
