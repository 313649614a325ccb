import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** GET an evidence image (e.g. /jobs/{id}/evidence/{n}) with the bearer token, as a Blob. */
export function getEvidenceImage(imageUrl: string): Promise<Blob> {
  return api.blob(imageUrl, { headers: { Accept: 'image/*' } });
}

export const evidenceImageQueryOptions = (imageUrl: string) =>
  queryOptions({ queryKey: ['evidence', imageUrl], queryFn: () => getEvidenceImage(imageUrl), staleTime: Infinity });

/** Nothing to fetch for a violation added by a reviewer (no crop: `image_url` null). */
export function useEvidenceImage(imageUrl: string | null) {
  return useQuery({ ...evidenceImageQueryOptions(imageUrl ?? ''), enabled: !!imageUrl, retry: 1 });
}
