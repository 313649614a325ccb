import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ComplianceReport } from '@/types/api';

export interface ComplianceFilters {
  from: string;
  to: string;
  site_id?: string;
  crew_id?: string;
  job_type?: string;
}

/** GET /orgs/{id}/compliance */
export function getCompliance(orgId: string, by: ComplianceReport['by'], interval: ComplianceReport['interval'], filters: ComplianceFilters): Promise<ComplianceReport> {
  return api.get<ComplianceReport>(`/orgs/${encodeURIComponent(orgId)}/compliance`, { query: { by, interval, ...filters } });
}

export const complianceQueryOptions = (orgId: string, by: ComplianceReport['by'], interval: ComplianceReport['interval'], filters: ComplianceFilters, lang: string) =>
  queryOptions({ queryKey: ['compliance', orgId, by, interval, filters, lang], queryFn: () => getCompliance(orgId, by, interval, filters), placeholderData: keepPreviousData });

export function useCompliance(orgId: string | undefined, by: ComplianceReport['by'], interval: ComplianceReport['interval'], filters: ComplianceFilters, lang: string) {
  return useQuery({ ...complianceQueryOptions(orgId ?? '', by, interval, filters, lang), enabled: !!orgId });
}
