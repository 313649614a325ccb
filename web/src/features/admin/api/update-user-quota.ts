import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QuotaUpdate, UserQuotaRow } from '@/types/api';

/** PATCH /admin/users/{id}/quota with only the changed fields. */
export function updateUserQuota(input: { userId: string; changes: QuotaUpdate }): Promise<UserQuotaRow> {
  return api.patch<UserQuotaRow>(`/admin/users/${encodeURIComponent(input.userId)}/quota`, input.changes);
}

export function useUpdateUserQuota() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updateUserQuota, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'quotas'] }) });
}
