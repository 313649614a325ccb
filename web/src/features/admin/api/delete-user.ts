import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** DELETE /admin/users/{id} — the user's jobs go with them. */
export function deleteUser(userId: string): Promise<void> {
  return api.delete(`/admin/users/${encodeURIComponent(userId)}`);
}

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteUser, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin'] }) });
}
