import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem } from '@/types/api';

/** History page size for admins (spec section 9). */
export const ADMIN_HISTORY_LIMIT = 50;

const POLL_MS = 2500;

/** GET /admin/jobs?limit=&q= — q is trimmed and sent only when not empty. */
export function getAdminJobs(search: string, limit: number = ADMIN_HISTORY_LIMIT): Promise<JobListItem[]> {
  const q = search.trim();
  return api.get<JobListItem[]>('/admin/jobs', { query: { limit, ...(q ? { q } : {}) } });
}

export const adminJobsQueryOptions = (search: string) =>
  queryOptions({ queryKey: ['admin', 'jobs', search.trim()], queryFn: () => getAdminJobs(search) });

/** While a cancel is under way the list is polled, so the row updates once the job has stopped. */
export function useAdminJobs(search: string, enabled = true, poll = false) {
  return useQuery({ ...adminJobsQueryOptions(search), enabled, refetchInterval: poll ? POLL_MS : false });
}
