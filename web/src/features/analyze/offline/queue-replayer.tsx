import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { REPLAY_MESSAGE } from '@/features/analyze/offline/constants';
import { onQueuedJobCreated, replayQueue } from '@/features/analyze/offline/replay';
import { useAuth } from '@/lib/auth';

/** Replays the upload queue at start, when the browser goes online, and when the service worker's Background Sync asks. */
export function useQueueReplay(userId: string | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => onQueuedJobCreated(() => void queryClient.invalidateQueries({ queryKey: ['jobs'] })), [queryClient]);
  useEffect(() => {
    if (!userId || typeof indexedDB === 'undefined') return;
    const replay = () => void replayQueue(userId).catch(() => undefined);
    replay();
    window.addEventListener('online', replay);
    const onMessage = (event: MessageEvent) => {
      if ((event.data as { type?: string } | null)?.type === REPLAY_MESSAGE) replay();
    };
    navigator.serviceWorker?.addEventListener('message', onMessage);
    return () => {
      window.removeEventListener('online', replay);
      navigator.serviceWorker?.removeEventListener('message', onMessage);
    };
  }, [userId]);
}

/** Mounted once for the whole app: waiting videos upload from any page. */
export function QueueReplayer() {
  const { user } = useAuth();
  useQueueReplay(user?.id);
  return null;
}
