import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem } from '@/types/api';

/** The most the queue counts at once (the API's limit). */
export const REVIEW_QUEUE_LIMIT = 100;

/** GET /jobs?scope=org&reviewed=false (managers): the organisation's jobs with findings not yet reviewed. */
export function getReviewQueue(): Promise<JobListItem[]> {
  return api.get<JobListItem[]>('/jobs', { query: { scope: 'org', reviewed: false, limit: REVIEW_QUEUE_LIMIT } });
}

export const reviewQueueQueryOptions = () => queryOptions({ queryKey: ['jobs', 'org', 'review-queue'], queryFn: getReviewQueue, staleTime: 30_000 });

export function useReviewQueue(enabled: boolean) {
  return useQuery({ ...reviewQueueQueryOptions(), enabled });
}
