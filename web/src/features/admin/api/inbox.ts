import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export interface InboxItem {
  id: string;
  kind: 'contact' | 'upgrade_request';
  name: string | null;
  email: string;
  subject: string | null;
  message: string | null;
  origin: string | null;
  created_at: string;
  handled: boolean;
  handled_at: string | null;
}

/** GET /admin/inbox?kind= — contact messages or upgrade requests, newest first. */
export function getInbox(kind: InboxItem['kind']): Promise<InboxItem[]> {
  return api.get<InboxItem[]>('/admin/inbox', { query: { kind, limit: 50 } });
}

export const inboxQueryOptions = (kind: InboxItem['kind']) => queryOptions({ queryKey: ['admin', 'inbox', kind], queryFn: () => getInbox(kind) });

export function useInbox(kind: InboxItem['kind']) {
  return useQuery(inboxQueryOptions(kind));
}

/** POST /admin/inbox/{id}/handled */
export function markHandled(input: { id: string; handled: boolean }): Promise<InboxItem> {
  return api.post<InboxItem>(`/admin/inbox/${encodeURIComponent(input.id)}/handled`, { handled: input.handled });
}

export function useMarkHandled() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: markHandled, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'inbox'] }) });
}
