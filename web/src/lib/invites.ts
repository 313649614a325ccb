import { useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { OrgRole } from '@/types/api';

export interface InvitePreview {
  org_id: string;
  org_name: string;
  email: string;
  role: OrgRole;
  expires_at: string;
  accepted: boolean;
}

/** GET /invites/{token}: no login needed, the token is the secret the mail carried (issue 54). */
export function useInvitePreview(token: string | null) {
  return useQuery({
    queryKey: ['invites', token],
    queryFn: () => api.get<InvitePreview>(`/invites/${encodeURIComponent(token!)}`),
    enabled: token !== null,
    retry: false,
  });
}

/** The invitation token in a remembered path (`/invite/:token`), or null for any other path. */
export function inviteTokenOf(path: string | null | undefined): string | null {
  const match = /^\/invite\/([^/?#]+)$/.exec(path?.split(/[?#]/)[0] ?? '');
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}
