/** GET and PATCH /orgs/{id}/settings: how faces are treated in the evidence (issue 30) and the time zone of the reports (issue 54). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export interface OrgSettings {
  blur_third_party: boolean;
  managers_see_unblurred: boolean;
  /** IANA name; absent from servers before issue 54. */
  time_zone?: string;
}

const settingsKey = (orgId: string) => ['orgs', orgId, 'settings'];
const url = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}/settings`;

/** GET /orgs/{id}/settings (any member). */
export const useOrgSettings = (orgId: string) => useQuery({ queryKey: settingsKey(orgId), queryFn: () => api.get<OrgSettings>(url(orgId)) });

/** PATCH /orgs/{id}/settings (managers): only the settings given change; the answer is all of them. */
export function useSaveOrgSettings(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (next: Partial<OrgSettings>) => api.patch<OrgSettings>(url(orgId), next),
    onSuccess: (data) => client.setQueryData(settingsKey(orgId), data),
  });
}
