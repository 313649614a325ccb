import { JobPage } from '@/features/analyze/components/job-page';
import { ReviewBoard } from '@/features/review/components/review-board';

/** A job's page with the review of its findings after the result (issue 53). */
export const JobRoute = () => <JobPage after={(job) => <ReviewBoard job={job} />} />;
