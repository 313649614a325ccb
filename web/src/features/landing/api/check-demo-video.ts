import { queryOptions, useQuery } from '@tanstack/react-query';

import { env } from '@/config/env';
import { api, apiUrl } from '@/lib/api-client';

/** The demo video's address (API base + configured path), or null when none is configured. */
export function demoVideoUrl(path: string | null = env.demoVideoPath): string | null {
  return path ? apiUrl(path) : null;
}

/** HEAD on the demo video: is it there to be played? */
export function checkDemoVideo(url: string): Promise<boolean> {
  return api.head(url, { timeoutMs: 10_000 });
}

export const demoVideoQueryOptions = (url: string) => queryOptions({ queryKey: ['demo-video', url], queryFn: () => checkDemoVideo(url), staleTime: Infinity });

/** The demo video URL when configured and reachable, else null. */
export function useDemoVideo(): { url: string | null; checking: boolean } {
  const url = demoVideoUrl();
  const query = useQuery({ ...demoVideoQueryOptions(url ?? ''), enabled: url !== null, retry: false });
  return { url: url && query.data === true ? url : null, checking: url !== null && query.isPending };
}
