import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { JobListItem, JobStatus } from '@/types/api';

/** The most an organisation's list shows at once (the API's limit). */
export const ORG_JOBS_LIMIT = 100;

/** What a manager narrows the organisation's jobs by: the dashboard's filters, plus who recorded and the status. */
export interface OrgJobFilters {
  from?: string;
  to?: string;
  site_id?: string;
  crew_id?: string;
  user_id?: string;
  status?: JobStatus;
  has_violations?: 'true' | 'false';
  /** 'false': the review queue — jobs with findings (violations, cannot tell) not yet reviewed; 'true': none left. */
  reviewed?: 'true' | 'false';
}

/** GET /jobs?scope=org (managers): every member's jobs, newest first, with who recorded them. */
export function getOrgJobs(filters: OrgJobFilters): Promise<JobListItem[]> {
  return api.get<JobListItem[]>('/jobs', { query: { scope: 'org', limit: ORG_JOBS_LIMIT, ...filters } });
}

export const orgJobsQueryOptions = (filters: OrgJobFilters, lang: string) =>
  queryOptions({ queryKey: ['jobs', 'org', filters, lang], queryFn: () => getOrgJobs(filters), placeholderData: keepPreviousData });

export function useOrgJobs(filters: OrgJobFilters, lang: string, enabled: boolean) {
  return useQuery({ ...orgJobsQueryOptions(filters, lang), enabled });
}
