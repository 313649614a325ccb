import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { JOB_CREATED_MESSAGE, REPLAY_MESSAGE } from '@/features/analyze/offline/constants';
import { clearSessions, putSession, type QueuedUpload } from '@/features/analyze/offline/queue-db';
import { notifyQueuedJobCreated, onQueuedJobCreated, replayQueue } from '@/features/analyze/offline/replay';
import type { StartedJob } from '@/features/analyze/api/start-analysis';
import { apiUrl, getAuthToken } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

/**
 * Replays the upload queue at start and when the browser goes online; hears of the jobs the
 * service worker created from the queue (Background Sync).
 */
export function useQueueReplay(userId: string | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => onQueuedJobCreated(() => void queryClient.invalidateQueries({ queryKey: ['jobs'] })), [queryClient]);
  useEffect(() => {
    if (!userId || typeof indexedDB === 'undefined') return;
    const replay = () => void replayQueue(userId).catch(() => undefined);
    replay();
    window.addEventListener('online', replay);
    const onMessage = (event: MessageEvent) => {
      const data = event.data as { type?: string; job?: StartedJob; item?: QueuedUpload } | null;
      // An older service worker still asks the page to upload.
      if (data?.type === REPLAY_MESSAGE) replay();
      if (data?.type === JOB_CREATED_MESSAGE && data.job && data.item?.userId === userId) notifyQueuedJobCreated(data.job, data.item);
    };
    navigator.serviceWorker?.addEventListener('message', onMessage);
    return () => {
      window.removeEventListener('online', replay);
      navigator.serviceWorker?.removeEventListener('message', onMessage);
    };
  }, [userId]);
}

/**
 * Mirrors the session into IndexedDB for the service worker, which cannot read localStorage:
 * the token of the signed-in user (fresh after every login), forgotten on logout.
 */
export function useSessionMirror(userId: string | undefined, status: string, language: string | null) {
  const token = getAuthToken();
  useEffect(() => {
    if (typeof indexedDB === 'undefined') return;
    if (userId && token) {
      void putSession({ userId, token, apiBase: apiUrl(''), language, updatedAt: new Date().toISOString() }).catch(() => undefined);
    } else if (status === 'anonymous') {
      void clearSessions().catch(() => undefined);
    }
  }, [userId, token, status, language]);
}

/** Mounted once for the whole app: waiting videos upload from any page. */
export function QueueReplayer() {
  const { user, status } = useAuth();
  const { i18n } = useTranslation();
  useSessionMirror(user?.id, status, i18n.language || null);
  useQueueReplay(user?.id);
  return null;
}
