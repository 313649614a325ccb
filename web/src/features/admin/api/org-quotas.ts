import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { Quota, QuotaUpdate } from '@/types/api';

export interface OrgQuotaRow {
  org_id: string;
  name: string;
  member_count: number;
  quota: Quota;
}

/** GET /admin/orgs/quotas */
export function useOrgQuotas(enabled = true) {
  return useQuery({ queryKey: ['admin', 'org-quotas'], queryFn: () => api.get<OrgQuotaRow[]>('/admin/orgs/quotas'), enabled });
}

/** PATCH /admin/orgs/{id}/quota with only the changed fields. */
export function useUpdateOrgQuota() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { orgId: string; changes: QuotaUpdate }) => api.patch<OrgQuotaRow>(`/admin/orgs/${encodeURIComponent(input.orgId)}/quota`, input.changes),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'org-quotas'] }),
  });
}
