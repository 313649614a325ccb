/** The user's webhooks (GET/POST /webhooks, DELETE /webhooks/{id}): list, create (its secret shown once), delete. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'quota.low'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  created_at: string;
  disabled_at: string | null;
  failing_since: string | null;
}

const KEY = ['webhooks'];

export function useWebhooks() {
  return useQuery({ queryKey: KEY, queryFn: () => api.get<Webhook[]>('/webhooks') });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { url: string; events: WebhookEvent[] }) => api.post<Webhook & { secret: string }>('/webhooks', input),
    onSuccess: () => client.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/webhooks/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: KEY }),
  });
}
