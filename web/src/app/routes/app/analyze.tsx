import { AnalyzePage } from '@/features/analyze/components/analyze-page';
import { ReviewQueueCard } from '@/features/review/components/review-queue-card';

/** The dashboard: a manager sees the team's review queue first (issue 53). */
export const AnalyzeRoute = () => <AnalyzePage top={<ReviewQueueCard />} />;
