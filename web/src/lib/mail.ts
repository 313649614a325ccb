import { useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/**
 * GET /mail/status: whether this Baret can send mail (issue 54). `false`: no mail server, so no page
 * says "sent, check your inbox"; they say what happened and whom to ask. `undefined` while it is
 * asked; a server that cannot say (an older one) is taken to send mail, as before.
 */
export function useMailDelivers(): boolean | undefined {
  const status = useQuery({ queryKey: ['mail', 'status'], queryFn: () => api.get<{ delivers: boolean }>('/mail/status'), staleTime: 10 * 60_000, retry: false });
  return status.isError ? true : status.data?.delivers;
}
