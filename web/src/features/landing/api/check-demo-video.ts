import { queryOptions, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { env, normaliseMediaPath } from '@/config/env';
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

/** Where the demo video is now, as the server says (`GET /media/demo.json`): its path, or null. */
export async function currentDemoVideoPath(): Promise<string | null> {
  const body = await api.get<{ video?: unknown } | undefined>('/media/demo.json', { timeoutMs: 10_000 });
  return typeof body?.video === 'string' ? normaliseMediaPath(body.video) : null;
}

/** Asked afresh on every load of the app (the service worker does not cache it either). */
export const currentDemoVideoQueryOptions = () => queryOptions({ queryKey: ['demo-video-path'], queryFn: currentDemoVideoPath, staleTime: Infinity });

/**
 * Whether this page came through a service worker (an installed app, a return visit): then its
 * index.html, and the demo-video tag in it, came from the precache and is as old as the app version.
 */
export function servedByServiceWorker(): boolean {
  return typeof navigator !== 'undefined' && Boolean(navigator.serviceWorker?.controller);
}

/**
 * The demo video URL when configured and reachable, else null. The page's own tag says whether the
 * server has the video, unless the page came from the service worker's cache: then the server is
 * asked (`/media/demo.json`), so a demo video added since the app was installed shows on the next
 * load, without a new app version.
 */
export function useDemoVideo(): { url: string | null; checking: boolean } {
  const [askServer] = useState(() => env.demoVideoEnabled && servedByServiceWorker());
  const current = useQuery({ ...currentDemoVideoQueryOptions(), enabled: askServer, retry: false });
  const url = demoVideoUrl(askServer ? (current.data ?? null) : env.demoVideoPath);
  const query = useQuery({ ...demoVideoQueryOptions(url ?? ''), enabled: url !== null, retry: false });
  return { url: url && query.data === true ? url : null, checking: (askServer && current.isPending) || (url !== null && query.isPending) };
}
