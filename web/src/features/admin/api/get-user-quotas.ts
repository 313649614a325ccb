import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { UserQuotaRow } from '@/types/api';

/** GET /admin/users/quotas */
export function getUserQuotas(): Promise<UserQuotaRow[]> {
  return api.get<UserQuotaRow[]>('/admin/users/quotas');
}

export const userQuotasQueryOptions = () => queryOptions({ queryKey: ['admin', 'quotas'], queryFn: getUserQuotas });

export function useUserQuotas(enabled = true) {
  return useQuery({ ...userQuotasQueryOptions(), enabled });
}
