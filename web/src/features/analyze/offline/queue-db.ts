import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

import type { AnalysisParams } from '@/features/analyze/api/start-analysis';

export type QueuedState = 'waiting' | 'uploading' | 'failed';

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
}

interface QueueSchema extends DBSchema {
  /** Small records, rewritten as the upload progresses. */
  uploads: { key: string; value: QueuedUpload; indexes: { byUser: string } };
  /** The videos themselves, written once. */
  files: { key: string; value: { id: string; blob: Blob } };
}

const DB_NAME = 'baret-field';
let dbPromise: Promise<IDBPDatabase<QueueSchema>> | null = null;

function db(): Promise<IDBPDatabase<QueueSchema>> {
  dbPromise ??= openDB<QueueSchema>(DB_NAME, 1, {
    upgrade(database) {
      const store = database.createObjectStore('uploads', { keyPath: 'id' });
      store.createIndex('byUser', 'userId');
      database.createObjectStore('files', { keyPath: 'id' });
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
