import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** GET a finding's crop (/jobs/{id}/violations/{n}) with the bearer token, as a Blob. */
export function getFindingImage(imageUrl: string): Promise<Blob> {
  return api.blob(imageUrl, { headers: { Accept: 'image/*' } });
}

/** Keyed as the result's evidence images are (['evidence', url]): the page fetches each crop once. */
export const findingImageQueryOptions = (imageUrl: string) => queryOptions({ queryKey: ['evidence', imageUrl], queryFn: () => getFindingImage(imageUrl), staleTime: Infinity });

export function useFindingImage(imageUrl: string | null) {
  return useQuery({ ...findingImageQueryOptions(imageUrl ?? ''), enabled: !!imageUrl, retry: 1 });
}
