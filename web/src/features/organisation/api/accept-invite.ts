import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { Org, OrgRole } from '@/types/api';

export interface InvitePreview {
  org_id: string;
  org_name: string;
  email: string;
  role: OrgRole;
  expires_at: string;
  accepted: boolean;
}

/** GET /invites/{token} */
export function useInvitePreview(token: string) {
  return useQuery({ queryKey: ['invites', token], queryFn: () => api.get<InvitePreview>(`/invites/${encodeURIComponent(token)}`), retry: false });
}

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
