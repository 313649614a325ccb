import type { Principal } from '@baret/platform';
import type { JobDoc } from './readModels/jobs.js';

/** Where a job's unblurred evidence is kept, when its organisation keeps one (the analysis service writes it there). */
export const unblurredPrefix = (jobId: string): string => `jobs/${jobId}/unblurred/`;

/**
 * Whether a person may open a job's unblurred evidence (`managers_see_unblurred`, issue 30): the
 * managers of the job's organisation only — not its owner, not an admin. The evidence routes and
 * the data export both ask here.
 */
export function maySeeUnblurred(principal: Principal, job: Pick<JobDoc, 'org_id'>): boolean {
  return !!job.org_id && principal.orgRole === 'manager' && principal.orgId === job.org_id;
}
