import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

import type { AnalysisParams } from '@/features/analyze/api/start-analysis';

/**
 * waiting: for a network (or its turn); uploading: one uploader (a page or the service worker)
 * holds it; loginNeeded: the server refused the session (401), it goes on after a new login;
 * failed: refused for good (the reason in `error`).
 */
export type QueuedState = 'waiting' | 'uploading' | 'loginNeeded' | 'failed';

/** A video waiting to be uploaded, with the settings it was started with. */
export interface QueuedUpload {
  id: string;
  /** Whose video it is: the queue shows and replays only the signed-in user's items. */
  userId: string;
  name: string;
  type: string;
  size: number;
  params: AnalysisParams;
  createdAt: string;
  state: QueuedState;
  /** Bytes the server confirmed so far. */
  bytesSent: number;
  /** The resumable upload on the server, once created: a replay continues it. */
  uploadUrl: string | null;
  /** Why it failed for good: a translation key or the server's sentence. */
  error: { key?: string; text?: string } | null;
  /** Who uploads it now (a page or the service worker) and until when that claim holds (ms since epoch). */
  claim?: { owner: string; until: number } | null;
}

/**
 * The signed-in user's session, mirrored by the app for the service worker (which cannot read
 * localStorage): the bearer token, where the API is and the UI language.
 */
export interface QueueSession {
  userId: string;
  token: string;
  apiBase: string;
  language: string | null;
  updatedAt: string;
}

interface QueueSchema extends DBSchema {
  /** Small records, rewritten as the upload progresses. */
  uploads: { key: string; value: QueuedUpload; indexes: { byUser: string } };
  /** The videos themselves, written once. */
  files: { key: string; value: { id: string; blob: Blob } };
  /** One record per user with queued videos: see QueueSession. */
  sessions: { key: string; value: QueueSession };
}

const DB_NAME = 'baret-field';
let dbPromise: Promise<IDBPDatabase<QueueSchema>> | null = null;

function db(): Promise<IDBPDatabase<QueueSchema>> {
  dbPromise ??= openDB<QueueSchema>(DB_NAME, 2, {
    upgrade(database, oldVersion) {
      if (oldVersion < 1) {
        const store = database.createObjectStore('uploads', { keyPath: 'id' });
        store.createIndex('byUser', 'userId');
        database.createObjectStore('files', { keyPath: 'id' });
      }
      if (oldVersion < 2) database.createObjectStore('sessions', { keyPath: 'userId' });
    },
    // A newer version (another tab, the new service worker) wants to upgrade: let it.
    blocking(_current, _next, event) {
      (event.target as IDBDatabase | null)?.close();
      dbPromise = null;
    },
  });
  return dbPromise;
}

const listeners = new Set<() => void>();
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('baret-upload-queue') : null;
channel?.addEventListener('message', () => listeners.forEach((l) => l()));

function changed(): void {
  listeners.forEach((l) => l());
  channel?.postMessage('changed');
}

/** Calls `listener` whenever the queue changes, in this tab or another. */
export function subscribeQueue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function listQueued(userId: string): Promise<QueuedUpload[]> {
  const items = await (await db()).getAllFromIndex('uploads', 'byUser', userId);
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Every user's items (the service worker uploads for whoever has a session). */
export async function listAllQueued(): Promise<QueuedUpload[]> {
  const items = await (await db()).getAll('uploads');
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export async function getQueued(id: string): Promise<QueuedUpload | undefined> {
  return (await db()).get('uploads', id);
}

export async function getQueuedFile(id: string): Promise<Blob | undefined> {
  return (await (await db()).get('files', id))?.blob;
}

/** Stores the item and its video in one transaction: both are there, or neither. */
export async function putQueued(item: QueuedUpload, file: Blob): Promise<void> {
  const tx = (await db()).transaction(['uploads', 'files'], 'readwrite');
  await Promise.all([tx.objectStore('files').put({ id: item.id, blob: file }), tx.objectStore('uploads').put(item), tx.done]);
  changed();
}

export async function updateQueued(id: string, patch: Partial<Omit<QueuedUpload, 'id'>>): Promise<QueuedUpload | null> {
  const database = await db();
  const tx = database.transaction('uploads', 'readwrite');
  const current = await tx.store.get(id);
  if (!current) {
    await tx.done;
    return null;
  }
  const next = { ...current, ...patch };
  await tx.store.put(next);
  await tx.done;
  changed();
  return next;
}

export async function removeQueued(id: string): Promise<void> {
  const tx = (await db()).transaction(['uploads', 'files'], 'readwrite');
  await Promise.all([tx.objectStore('uploads').delete(id), tx.objectStore('files').delete(id), tx.done]);
  changed();
}

/** How long a claim holds without being renewed: an uploader that died frees its item after this. */
export const CLAIM_MS = 2 * 60 * 1000;

/**
 * Takes the item for `owner` in one transaction, so exactly one uploader (a page or the service
 * worker) replays it: refused (null) while someone else's claim holds, or when the item is gone
 * or failed. The item shows as uploading meanwhile. `isStaleOwner` names claimers known to be gone
 * (the service worker, with no page open, knows no page can still be uploading).
 */
export async function claimQueued(id: string, owner: string, now = Date.now(), isStaleOwner: (owner: string) => boolean = () => false): Promise<QueuedUpload | null> {
  const tx = (await db()).transaction('uploads', 'readwrite');
  const current = await tx.store.get(id);
  const heldByOther = current?.claim && current.claim.owner !== owner && current.claim.until > now && !isStaleOwner(current.claim.owner);
  if (!current || current.state === 'failed' || heldByOther) {
    await tx.done;
    return null;
  }
  const next: QueuedUpload = { ...current, state: 'uploading', claim: { owner, until: now + CLAIM_MS } };
  await tx.store.put(next);
  await tx.done;
  changed();
  return next;
}

/** Renews `owner`'s claim and records progress; false when the claim was lost (the item is gone or taken). */
export async function renewClaim(id: string, owner: string, patch: Partial<Omit<QueuedUpload, 'id' | 'claim'>> = {}, now = Date.now()): Promise<boolean> {
  const tx = (await db()).transaction('uploads', 'readwrite');
  const current = await tx.store.get(id);
  if (!current || current.claim?.owner !== owner) {
    await tx.done;
    return false;
  }
  await tx.store.put({ ...current, ...patch, claim: { owner, until: now + CLAIM_MS } });
  await tx.done;
  changed();
  return true;
}

/** Ends `owner`'s claim with the item's new state. */
export async function releaseClaim(id: string, owner: string, patch: Partial<Omit<QueuedUpload, 'id' | 'claim'>>): Promise<void> {
  const tx = (await db()).transaction('uploads', 'readwrite');
  const current = await tx.store.get(id);
  if (!current || (current.claim && current.claim.owner !== owner)) {
    await tx.done;
    return;
  }
  await tx.store.put({ ...current, ...patch, claim: null });
  await tx.done;
  changed();
}

export async function putSession(session: QueueSession): Promise<void> {
  await (await db()).put('sessions', session);
}

export async function getSession(userId: string): Promise<QueueSession | undefined> {
  return (await db()).get('sessions', userId);
}

/** Logged out (or the token was refused): the service worker uploads for nobody until the next login. */
export async function clearSessions(): Promise<void> {
  await (await db()).clear('sessions');
}
