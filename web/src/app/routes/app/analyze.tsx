import { AnalyzePage } from '@/features/analyze/components/analyze-page';

export const AnalyzeRoute = () => <AnalyzePage />;
