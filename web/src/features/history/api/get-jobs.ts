import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem } from '@/types/api';

/** History page size for users (spec section 9). */
export const USER_HISTORY_LIMIT = 30;

/** GET /jobs?limit= (own jobs, newest first) */
export function getJobs(limit: number = USER_HISTORY_LIMIT): Promise<JobListItem[]> {
  return api.get<JobListItem[]>('/jobs', { query: { limit } });
}

export const jobsQueryOptions = (limit: number = USER_HISTORY_LIMIT) => queryOptions({ queryKey: ['jobs', 'list', limit], queryFn: () => getJobs(limit) });

export function useJobs(enabled = true) {
  return useQuery({ ...jobsQueryOptions(), enabled });
}
