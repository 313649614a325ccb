import { AppProvider } from '@/app/provider';
import { AppRouter } from '@/app/router';
import { QueueReplayer } from '@/features/analyze/offline/queue-replayer';
import { FieldMode } from '@/features/offline/components/field-mode';

export function App() {
  return (
    <AppProvider>
      <AppRouter />
      <FieldMode />
      <QueueReplayer />
    </AppProvider>
  );
}
