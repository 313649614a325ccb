/** The audit log (issue 30): an organisation's for its managers, the whole log for admins. */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { AuditPage } from '@/types/api';

export type AuditScope = { kind: 'org'; orgId: string } | { kind: 'admin' };

export interface AuditFilters {
  from?: string;
  to?: string;
  action?: string;
  actor?: string;
  object?: string;
  /** How the object filter reads on screen (not sent). */
  objectLabel?: string;
}

/** The actions the log records (the server's names; their words are under audit.actions). */
export const AUDIT_ACTIONS: readonly string[] =
  'job.viewed job.downloaded_json job.downloaded_pdf jobs.downloaded_csv job.cancelled job.deleted job.finding_reviewed reviews.exported member.role_changed quota.changed setting.changed auth.signed_in auth.sign_in_failed auth.password_reset auth.sso_linked'.split(' ');

const base = (scope: AuditScope) => (scope.kind === 'org' ? `/orgs/${encodeURIComponent(scope.orgId)}/audit` : '/admin/audit');
const clean = (filters: AuditFilters) => Object.fromEntries(Object.entries(filters).filter(([k]) => k !== 'objectLabel').filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, (v as string).trim()]));

/** GET /orgs/{id}/audit or /admin/audit, newest first, page by page (the cursor). */
export function useAuditLog(scope: AuditScope, filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: ['audit', scope.kind === 'org' ? scope.orgId : 'admin', clean(filters)],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => api.get<AuditPage>(base(scope), { query: { ...clean(filters), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } }),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** Someone the log can be filtered by: a user id and the words a person reads. */
export interface AuditPerson {
  id: string;
  label: string;
}

/**
 * Whom the "who" filter offers (issue 40: no raw ids to type): an organisation's members
 * (GET /orgs/{id}/members), or for admins every account (GET /admin/users/quotas).
 */
export function useAuditPeople(scope: AuditScope) {
  return useQuery({
    queryKey: ['audit-people', scope.kind === 'org' ? scope.orgId : 'admin'],
    queryFn: async (): Promise<AuditPerson[]> => {
      const path = scope.kind === 'org' ? `/orgs/${encodeURIComponent(scope.orgId)}/members` : '/admin/users/quotas';
      const rows = (await api.get<Array<{ user_id: string; email: string; full_name: string | null }>>(path)) ?? [];
      return rows.map((r) => ({ id: r.user_id, label: r.full_name ? `${r.full_name} · ${r.email}` : r.email })).sort((a, b) => a.label.localeCompare(b.label));
    },
    staleTime: 60_000,
  });
}

/** GET …/audit.csv with the bearer token, saved by the browser. */
export async function downloadAuditCsv(scope: AuditScope, filters: AuditFilters, lang: string): Promise<void> {
  const blob = await api.blob(`${base(scope)}.csv`, { query: { ...clean(filters), lang: lang === 'en' ? 'en' : 'tr' }, headers: { Accept: 'text/csv' } });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `baret-audit-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
