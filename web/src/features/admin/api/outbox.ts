import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** A mail Baret sent (SMTP) or, without a mail server, kept instead of sending (`log`). */
export interface OutboxMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  /** What the API shows of the mail's text (links with live tokens are not for the admin's eyes). */
  text?: string | null;
  channel: 'smtp' | 'log';
  created_at: string;
}

/** GET /admin/outbox — newest first. */
export function getOutbox(): Promise<OutboxMail[]> {
  return api.get<OutboxMail[]>('/admin/outbox', { query: { limit: 50 } });
}

export const outboxQueryOptions = () => queryOptions({ queryKey: ['admin', 'outbox'], queryFn: getOutbox });

export function useOutbox() {
  return useQuery(outboxQueryOptions());
}

export type AdminMailAction = 'verify' | 'email_verification' | 'password_reset';

/** POST /admin/accounts/mail — confirm an address by hand, or mail its owner a new link. */
export function adminMail(input: { email: string; action: AdminMailAction }): Promise<{ status: 'accepted' }> {
  return api.post<{ status: 'accepted' }>('/admin/accounts/mail', input);
}

export function useAdminMail() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: adminMail, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'outbox'] }) });
}
