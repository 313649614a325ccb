import type { TFunction } from 'i18next';
import { modelText, taskFallbackName } from '@/lib/format';
import { JOB_STATUSES, type JobListItem } from '@/types/api';

/** The job type a row shows: the task's name, a name made from its slug, or "automatic" while unclassified. */
export function jobTypeText(job: JobListItem, t: TFunction): string {
  if (job.job_display_name) return job.job_display_name;
  if (job.job_type && job.job_type !== 'auto') return taskFallbackName(job.job_type);
  return t('analyze.form.jobType_auto');
}

/**
 * Client-side search for users over what a row shows: id, file name, model, job type and the
 * status as displayed (in the current language) as well as its code.
 */
export function filterJobs(jobs: readonly JobListItem[], search: string, t: TFunction, locale?: string): JobListItem[] {
  const needle = search.trim().toLocaleLowerCase(locale);
  if (!needle) return [...jobs];
  return jobs.filter((job) =>
    [job.job_id, job.input_filename, job.model_used, modelText(t, job.model_used), job.status, t(`status.${job.status}`), jobTypeText(job, t)].some((value) => (value ?? '').toLocaleLowerCase(locale).includes(needle)),
  );
}

/** Admins search on the server, which knows status codes: a status typed as displayed ("Tamamlandı") is sent as its code. */
export function serverQuery(search: string, t: TFunction, locale?: string): string {
  const needle = search.trim().toLocaleLowerCase(locale);
  const status = JOB_STATUSES.find((code) => needle.length > 0 && t(`status.${code}`).toLocaleLowerCase(locale) === needle);
  return status ?? search;
}

export const canCancel = (job: JobListItem) => job.status === 'queued' || job.status === 'running';
export const canDelete = (job: JobListItem) => !canCancel(job);
