import { HistoryPage } from '@/features/history/components/history-page';

export const HistoryRoute = () => <HistoryPage />;
