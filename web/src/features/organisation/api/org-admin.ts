/** The organisation page's calls: create, members, invitations, sites and crews. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { useOrgMembers, type UnitKind } from '@/lib/org';
import type { CreatedInvite, Org, OrgMember, OrgRole, OrgUnit, PendingInvite } from '@/types/api';

const org = (id: string) => `/orgs/${encodeURIComponent(id)}`;

/** POST /orgs */
export function useCreateOrg() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<Org>('/orgs', { name }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['orgs'] });
      await client.invalidateQueries({ queryKey: ['auth'] });
    },
  });
}

/** GET /orgs/{id}/members */
export const useMembers = (orgId: string) => useOrgMembers(orgId);

/** DELETE /orgs/{id}/members/{user_id} */
export function useRemoveMember(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => api.delete(`${org(orgId)}/members/${encodeURIComponent(userId)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['orgs'] }),
  });
}

/** PATCH /orgs/{id}/members/{user_id} {role} (managers; issue 30) */
export function useChangeRole(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { userId: string; role: OrgRole }) => api.patch<OrgMember>(`${org(orgId)}/members/${encodeURIComponent(input.userId)}`, { role: input.role }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['orgs'] });
      await client.invalidateQueries({ queryKey: ['auth'] });
    },
  });
}

/** GET /orgs/{id}/invites (managers) */
export function usePendingInvites(orgId: string, enabled: boolean) {
  return useQuery({ queryKey: ['orgs', orgId, 'invites'], queryFn: () => api.get<PendingInvite[]>(`${org(orgId)}/invites`), enabled });
}

/** POST /orgs/{id}/invites */
export function useInvite(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; role: OrgRole }) => api.post<CreatedInvite>(`${org(orgId)}/invites`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: ['orgs', orgId, 'invites'] }),
  });
}

/** POST /orgs/{id}/sites or /crews */
export function useCreateUnit(orgId: string, kind: UnitKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; city?: string | null }) => api.post<OrgUnit>(`${org(orgId)}/${kind}s`, kind === 'site' ? input : { name: input.name }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['orgs', orgId, `${kind}s`] }),
  });
}

/** POST /orgs/{id}/sites/{id}/archive or /crews/{id}/archive */
export function useArchiveUnit(orgId: string, kind: UnitKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.post<OrgUnit>(`${org(orgId)}/${kind}s/${encodeURIComponent(id)}/archive`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['orgs', orgId, `${kind}s`] }),
  });
}
