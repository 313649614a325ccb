import { multipart } from './jobs.js';

/** What the stored quota events of one user say: units reserved and not given back. */
export function usedFromEvents(events: ReadonlyArray<{ type: string; data: unknown }>): number {
  const held = new Set<string>();
  for (const e of events) {
    const jobId = String((e.data as { job_id?: unknown }).job_id ?? '');
    if (e.type === 'quota_reserved') held.add(jobId);
    if (e.type === 'quota_released') held.delete(jobId);
  }
  return held.size;
}

/**
 * Sends `count` submissions of `video` at once as the user holding `token`, through `post`
 * (an HTTP call or an injected request), and returns their status codes.
 */
export async function raceSubmissions(count: number, video: Buffer, post: (body: { payload: Buffer; headers: Record<string, string> }) => Promise<number>): Promise<number[]> {
  const bodies = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      multipart(
        { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }) },
        { name: `race-${i}.mp4`, type: 'video/mp4', data: video },
      ),
    ),
  );
  return Promise.all(bodies.map(post));
}
