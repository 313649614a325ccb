import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type UpgradeOrigin = 'pricing' | 'profile';
export const UPGRADE_MESSAGE_MAX = 2000;

/** POST /usage/request-upgrade — a blank message is sent as null. */
export function requestUpgrade(input: { origin: UpgradeOrigin; message: string }): Promise<unknown> {
  const message = input.message.trim();
  return api.post('/usage/request-upgrade', { origin: input.origin, message: message ? message : null });
}

export function useRequestUpgrade() {
  return useMutation({ mutationFn: requestUpgrade });
}
