import { STORAGE_KEYS, storage } from '@/lib/storage';
import type { JobDetail } from '@/types/api';

/** How many finished jobs the analyze page keeps (spec section 9). */
export const RECENT_JOBS_LIMIT = 10;

function key(userId: string): string {
  return `${STORAGE_KEYS.recentJobs}:${userId}`;
}

function isJobList(value: unknown): value is JobDetail[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && 'job_id' in item && 'status' in item);
}

export function loadRecentJobs(userId: string | undefined): JobDetail[] {
  if (!userId) return [];
  return (storage.getJson(key(userId), isJobList) ?? []).slice(0, RECENT_JOBS_LIMIT);
}

/** Puts a finished job first, without duplicates, keeping at most 10. */
export function addRecentJob(list: readonly JobDetail[], job: JobDetail): JobDetail[] {
  return [job, ...list.filter((item) => item.job_id !== job.job_id)].slice(0, RECENT_JOBS_LIMIT);
}

export function saveRecentJobs(userId: string | undefined, list: readonly JobDetail[]): void {
  if (userId) storage.setJson(key(userId), list);
}
