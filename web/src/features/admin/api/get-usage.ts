import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { UsageSummary } from '@/types/api';

/** GET /admin/usage */
export function getUsage(): Promise<UsageSummary> {
  return api.get<UsageSummary>('/admin/usage');
}

export const usageQueryOptions = () => queryOptions({ queryKey: ['admin', 'usage'], queryFn: getUsage });

export function useUsage(enabled = true) {
  return useQuery({ ...usageQueryOptions(), enabled });
}
