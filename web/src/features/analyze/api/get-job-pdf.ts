import { api } from '@/lib/api-client';

/** GET /jobs/{id}/report.pdf?lang=tr|en: the job's PDF report (pro and enterprise plans). */
export function getJobPdf(jobId: string, lang: 'tr' | 'en'): Promise<Blob> {
  return api.blob(`/jobs/${encodeURIComponent(jobId)}/report.pdf`, { query: { lang }, headers: { Accept: 'application/pdf, application/problem+json' } });
}
