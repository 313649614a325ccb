import { localizeMessage, type Lang } from '@baret/platform';
import type { JobDoc, StoredResult } from '../../readModels/jobs.js';
import type { JobRoutesDeps, UnitNames } from './deps.js';
import type { PresentedResult } from './schemas.js';

/** A job as clients see it: its list item and its result, in the reader's language. */

function jobTypeName(job: JobDoc, lang: Lang): string | null {
  const names = job.result?.names?.[lang] ?? job.result?.names?.en;
  const name = names?.job_display_name;
  return typeof name === 'string' ? name : null;
}

/** How an organisation's job shows an owner who erased their account (issue 30). */
const DELETED_USER: Record<Lang, string> = { tr: 'silinmiş kullanıcı', en: 'deleted user' };

export const NO_NAMES: UnitNames = { site: new Map(), crew: new Map() };

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** The video's length, as the analysis read it when it opened the video. */
function videoDuration(job: JobDoc): number | null {
  const opened = job.logs.find((l) => l.event === 'video_opened')?.data?.duration_sec;
  return typeof opened === 'number' && Number.isFinite(opened) ? seconds(opened * 1000) : null;
}

/** How long the analysis took: from its (last) start to its completion. */
function processingTime(job: JobDoc): number | null {
  const started = job.logs.filter((l) => l.event === 'job_started').at(-1)?.timestamp;
  const completed = job.logs.find((l) => l.event === 'job_completed')?.timestamp;
  return started && completed ? seconds(Date.parse(completed) - Date.parse(started)) : null;
}

/** A job as lists show it; its error text in the reader's language. */
export function listItem(job: JobDoc, withUser: boolean, lang: Lang, names: UnitNames = NO_NAMES) {
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.created_at,
    input_filename: job.input_filename,
    model_used: job.model_used,
    estimated_cost: job.estimated_cost,
    currency: job.currency,
    error: job.error === null ? null : localizeMessage(job.error, lang),
    // The task the job ran as (the chosen one, or the one found once classified), named in the reader's language.
    job_type: typeof job.result?.job_type === 'string' ? job.result.job_type : job.params.job_type,
    job_display_name: jobTypeName(job, lang),
    ...(withUser ? (job.owner_deleted ? { user_email: '', user_full_name: DELETED_USER[lang] } : { user_email: job.user_email, user_full_name: job.user_full_name }) : {}),
    site_id: job.site_id ?? null,
    site_name: job.site_id ? (names.site.get(job.site_id) ?? null) : null,
    crew_id: job.crew_id ?? null,
    crew_name: job.crew_id ? (names.crew.get(job.crew_id) ?? null) : null,
    work_order: job.work_order ?? null,
    video_duration_sec: videoDuration(job),
    processing_sec: processingTime(job),
    has_violations: job.has_violations ?? null,
  };
}

/** The stored result in the reader's language, with evidence links and the duration. */
export function presentResult(job: JobDoc, lang: Lang): PresentedResult | null {
  if (!job.result) return null;
  const { names, evidence, violations, missing_evidence: missingEvidence, ...neutral } = job.result as StoredResult & {
    evidence?: Array<Record<string, unknown>>;
    violations?: Array<Record<string, unknown>>;
    missing_evidence?: Array<{ group: string[]; violation: number | null }>;
  };
  const localized = (names?.[lang] ?? names?.en ?? {}) as Record<string, unknown> & {
    evidence_names?: Record<string, string>;
    violation_group_names?: string[];
    violation_reasons?: Array<string | null>;
  };
  const { evidence_names: evidenceNames = {}, violation_group_names: violationNames = [], violation_reasons: reasonNames = [], ...texts } = localized;
  const violationUrl = (n: number) => `/jobs/${job.id}/violations/${n}`;
  return {
    ...neutral,
    ...texts,
    evidence: (evidence ?? []).map((e) => ({
      ...e,
      name: evidenceNames[String(e.code)] ?? String(e.code),
      image_url: `/jobs/${job.id}/evidence/${String(e.composite_index)}`,
    })),
    // Results stored before violations existed have none (and no evidence of their missing groups).
    violations: (violations ?? []).map((v, n) => ({ ...v, group_name: violationNames[n] ?? (v.group as string[]).join(', '), reason_name: reasonNames[n] ?? null, image_url: violationUrl(n) })),
    missing_evidence: (missingEvidence ?? []).map((m) => ({ ...m, image_url: m.violation === null ? null : violationUrl(m.violation) })),
    // The processing time (kept for API clients; the job's processing_sec says the same).
    duration_seconds: processingTime(job),
    // The stored result is the analysis service's (its shape is tested there); the response schema documents it.
  } as unknown as PresentedResult;
}

/** A job as its page, its JSON and its PDF show it: with who recorded it and the names of its site and crew. */
export const jobItem = async (deps: Pick<JobRoutesDeps, 'unitNames'>, job: JobDoc, lang: Lang) => listItem(job, true, lang, job.org_id ? await deps.unitNames(job.org_id) : NO_NAMES);
