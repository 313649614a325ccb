import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { Org } from '@/types/api';

export { useInvitePreview, type InvitePreview } from '@/lib/invites';

/** POST /invites/{token}/accept */
export function useAcceptInvite(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<Org>(`/invites/${encodeURIComponent(token)}/accept`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['orgs'] });
      await client.invalidateQueries({ queryKey: ['auth'] });
    },
  });
}
