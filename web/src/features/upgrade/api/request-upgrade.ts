import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type UpgradeOrigin = 'pricing' | 'profile';
export const UPGRADE_MESSAGE_MAX = 2000;

/** POST /usage/request-upgrade — a blank message is sent as null. */
export function requestUpgrade(input: { origin: UpgradeOrigin; message: string }): Promise<unknown> {
  const message = input.message.trim();
  return api.post('/usage/request-upgrade', { origin: input.origin, message: message ? message : null });
}

export function useRequestUpgrade() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: requestUpgrade, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['upgrade-request'] }) });
}

export interface UpgradeRequestState {
  pending: boolean;
  requested_at: string | null;
}

/** GET /usage/upgrade-request — whether the user already asked and the team has not handled it yet. */
export function getUpgradeRequest(): Promise<UpgradeRequestState> {
  return api.get<UpgradeRequestState>('/usage/upgrade-request');
}

export function useUpgradeRequest(enabled: boolean) {
  return useQuery({ queryKey: ['upgrade-request'], queryFn: getUpgradeRequest, enabled, retry: false });
}
