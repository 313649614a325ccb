import { Suspense, lazy } from 'react';

import { AppProvider } from '@/app/provider';
import { AppRouter } from '@/app/router';
import { FieldMode } from '@/features/offline/components/field-mode';
import { useAuth } from '@/lib/auth';

// The upload queue (IndexedDB, tus) is a signed-in user's: not on a visitor's first load (issue 40).
const QueueReplayer = lazy(() => import('@/features/analyze/offline/queue-replayer').then((m) => ({ default: m.QueueReplayer })));

function SignedInQueueReplayer() {
  const { user } = useAuth();
  return user ? (
    <Suspense fallback={null}>
      <QueueReplayer />
    </Suspense>
  ) : null;
}

export function App() {
  return (
    <AppProvider>
      <AppRouter />
      <FieldMode />
      <SignedInQueueReplayer />
    </AppProvider>
  );
}
