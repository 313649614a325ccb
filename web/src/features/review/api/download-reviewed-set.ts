import { api } from '@/lib/api-client';

/** GET /orgs/{id}/reviews/export (issue 53): the organisation's reviewed findings as a labelled set (ZIP), saved by the browser. */
export async function downloadReviewedSet(orgId: string): Promise<void> {
  const blob = await api.blob(`/orgs/${encodeURIComponent(orgId)}/reviews/export`, { headers: { Accept: 'application/zip' } });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `baret-reviews-${new Date().toISOString().slice(0, 10)}.zip`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
