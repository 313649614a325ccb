import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { NewApiKey } from '@/types/api';

export const API_KEY_NAME_MAX = 100;

/** The key name trimmed, or a validation error key. */
export function validateKeyName(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return 'apiKeys.nameRequired';
  if (trimmed.length > API_KEY_NAME_MAX) return 'apiKeys.nameTooLong';
  return null;
}

/** POST /auth/tokens — the full token comes back only here. */
export function createApiKey(name: string): Promise<NewApiKey> {
  return api.post<NewApiKey>('/auth/tokens', { name: name.trim() });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createApiKey, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }) });
}
