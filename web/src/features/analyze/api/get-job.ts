import { queryOptions, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { api } from '@/lib/api-client';
import { TERMINAL_STATUSES, type JobDetail } from '@/types/api';

/** Poll interval and retry delay after a failed poll (spec section 9). */
export const POLL_INTERVAL_MS = 2500;
export const POLL_RETRY_MS = 5000;

/** GET /jobs/{id} */
export function getJob(jobId: string, language?: string): Promise<JobDetail> {
  return api.get<JobDetail>(`/jobs/${encodeURIComponent(jobId)}`, language ? { headers: { 'Accept-Language': language } } : undefined);
}

/** Keyed by the UI language too: the server names the equipment in the Accept-Language sent. */
export const jobQueryOptions = (jobId: string, language: string) => queryOptions({ queryKey: ['jobs', 'detail', jobId, language], queryFn: () => getJob(jobId, language) });

/** When to poll next: stop on a finished job, wait longer after a failed poll. */
export function nextPollDelay(state: { status: 'pending' | 'error' | 'success'; data?: JobDetail }): number | false {
  if (state.data && TERMINAL_STATUSES.has(state.data.status)) return false;
  if (state.status === 'error') return POLL_RETRY_MS;
  return POLL_INTERVAL_MS;
}

/** Polls a job every 2500 ms until it is done, failed or cancelled; a failed poll retries after 5000 ms. */
export function useJobPolling(jobId: string | null) {
  const { i18n } = useTranslation();
  return useQuery({
    ...jobQueryOptions(jobId ?? '', i18n.language),
    // A language switch fetches the job again; the previous answer stays on screen meanwhile.
    placeholderData: (previous) => (previous?.job_id === jobId ? previous : undefined),
    enabled: jobId !== null,
    retry: false,
    refetchOnWindowFocus: false,
    refetchIntervalInBackground: true,
    refetchInterval: (query) => nextPollDelay({ status: query.state.status, data: query.state.data }),
  });
}
