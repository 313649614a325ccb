import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem } from '@/types/api';

/** History page size for admins (spec section 9). */
export const ADMIN_HISTORY_LIMIT = 50;

/** GET /admin/jobs?limit=&q= — q is trimmed and sent only when not empty. */
export function getAdminJobs(search: string, limit: number = ADMIN_HISTORY_LIMIT): Promise<JobListItem[]> {
  const q = search.trim();
  return api.get<JobListItem[]>('/admin/jobs', { query: { limit, ...(q ? { q } : {}) } });
}

export const adminJobsQueryOptions = (search: string) =>
  queryOptions({ queryKey: ['admin', 'jobs', search.trim()], queryFn: () => getAdminJobs(search) });

export function useAdminJobs(search: string, enabled = true) {
  return useQuery({ ...adminJobsQueryOptions(search), enabled });
}
