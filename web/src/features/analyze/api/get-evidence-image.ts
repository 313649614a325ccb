import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** GET an evidence image (e.g. /jobs/{id}/evidence/{n}) with the bearer token, as a Blob. */
export function getEvidenceImage(imageUrl: string): Promise<Blob> {
  return api.blob(imageUrl, { headers: { Accept: 'image/*' } });
}

export const evidenceImageQueryOptions = (imageUrl: string) =>
  queryOptions({ queryKey: ['evidence', imageUrl], queryFn: () => getEvidenceImage(imageUrl), staleTime: Infinity });

export function useEvidenceImage(imageUrl: string) {
  return useQuery({ ...evidenceImageQueryOptions(imageUrl), retry: 1 });
}
