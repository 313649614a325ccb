import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem } from '@/types/api';

/** GET /jobs?limit=1: the newest job of the user, or null. */
export async function getLatestJob(): Promise<JobListItem | null> {
  const jobs = await api.get<JobListItem[]>('/jobs', { query: { limit: 1 } });
  return jobs?.[0] ?? null;
}

export const latestJobQueryOptions = () => queryOptions({ queryKey: ['jobs', 'latest'], queryFn: getLatestJob, staleTime: 0, gcTime: 0 });

export function useLatestJob(enabled: boolean) {
  return useQuery({ ...latestJobQueryOptions(), enabled, retry: false, refetchOnWindowFocus: false });
}
