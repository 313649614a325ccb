import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';

import { listQueued, removeQueued, subscribeQueue, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { liveProgress, subscribeLiveProgress } from '@/features/analyze/offline/replay';
import { apiUrl, authHeaders } from '@/lib/api-client';

export interface QueueRow extends QueuedUpload {
  /** Bytes sent: live while uploading, else what the server confirmed. */
  sent: number;
}

let liveVersion = 0;
subscribeLiveProgress(() => liveVersion++);

/** The signed-in user's waiting uploads, kept current as the queue changes. */
export function useUploadQueue(userId: string | undefined) {
  const [items, setItems] = useState<QueuedUpload[]>([]);
  const version = useSyncExternalStore(subscribeLiveProgress, () => liveVersion);

  useEffect(() => {
    if (!userId || typeof indexedDB === 'undefined') return;
    let alive = true;
    const load = () => {
      listQueued(userId)
        .then((list) => alive && setItems(list))
        .catch(() => alive && setItems([]));
    };
    load();
    const unsubscribe = subscribeQueue(load);
    return () => {
      alive = false;
      unsubscribe();
    };
  }, [userId]);

  const rows: QueueRow[] = items.map((item) => ({ ...item, sent: liveProgress(item.id) ?? item.bytesSent }));
  void version;

  const remove = useCallback(async (item: QueuedUpload) => {
    await removeQueued(item.id);
    // Best effort: the partial upload on the server goes too (it would expire anyway).
    if (item.uploadUrl && navigator.onLine !== false) {
      void fetch(apiUrl(item.uploadUrl), { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0', ...authHeaders() } }).catch(() => undefined);
    }
  }, []);

  return { items: rows, remove };
}
