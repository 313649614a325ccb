import { JobPage } from '@/features/analyze/components/job-page';

export const JobRoute = () => <JobPage />;
