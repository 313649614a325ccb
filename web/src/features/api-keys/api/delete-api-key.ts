import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** DELETE /auth/tokens/{id} */
export function deleteApiKey(id: string): Promise<void> {
  return api.delete(`/auth/tokens/${encodeURIComponent(id)}`);
}

export function useDeleteApiKey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteApiKey, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }) });
}
