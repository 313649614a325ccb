import { api } from '@/lib/api-client';
import type { ComplianceFilters } from '@/features/compliance/api/get-compliance';

/** GET /orgs/{id}/jobs.csv with the bearer token, saved by the browser. */
export async function downloadJobsCsv(orgId: string, filters: ComplianceFilters, lang: string): Promise<void> {
  const blob = await api.blob(`/orgs/${encodeURIComponent(orgId)}/jobs.csv`, { query: { ...filters, lang: lang === 'en' ? 'en' : 'tr' }, headers: { Accept: 'text/csv' } });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `baret-jobs-${filters.from}-${filters.to}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
