import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ApiKey } from '@/types/api';

/** GET /auth/tokens */
export function getApiKeys(): Promise<ApiKey[]> {
  return api.get<ApiKey[]>('/auth/tokens');
}

export const apiKeysQueryOptions = () => queryOptions({ queryKey: ['api-keys'], queryFn: getApiKeys });

export function useApiKeys() {
  return useQuery(apiKeysQueryOptions());
}
