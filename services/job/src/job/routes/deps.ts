import type { AuditRecorder, AuditSource, Collection, ObjectStore, Principal } from '@baret/platform';
import type { JobDoc, UsageDoc } from '../../readModels/jobs.js';
import type { OrgProfile } from '../../readModels/orgs.js';
import type { ReceivedUpload } from '../../upload.js';
import type { ReviewInput, reviewsOf } from '../review.js';

/** The names of an organisation's sites and crews by id. */
export interface UnitNames {
  site: ReadonlyMap<string, string>;
  crew: ReadonlyMap<string, string>;
}

/** What the job routes are given by the service: its use cases, its read models and its settings. */
export interface JobRoutesDeps {
  submit(principal: Principal, upload: ReceivedUpload): Promise<{ job_id: string; status: 'queued' }>;
  submitResumable(principal: Principal, uploadId: string, fields: Record<string, string>): Promise<{ job_id: string; status: 'queued' }>;
  visibleJob(principal: Principal, jobId: string): Promise<JobDoc>;
  /** A list of the user's own jobs through the read cache: `key` names the query and language, `load` answers it from the store. */
  ownJobs<T>(userId: string, key: string, load: () => Promise<T[]>): Promise<T[]>;
  cancel(jobId: string, by: string, from?: AuditSource): Promise<{ job_id: string; status: string }>;
  remove(jobId: string, by: string, from?: AuditSource): Promise<void>;
  /** A reviewer's verdict on one finding (issue 53); answers the job's reviews. */
  review(principal: Principal, jobId: string, input: ReviewInput, from?: AuditSource): Promise<ReturnType<typeof reviewsOf>>;
  reviewsOf: typeof reviewsOf;
  /** The audit log (issue 30): views and downloads of a job are recorded. */
  audit: AuditRecorder;
  jobs: Collection<JobDoc>;
  usage: Collection<UsageDoc>;
  objects: ObjectStore;
  maxUploadBytes: number;
  /** Where uploads are received (the scratch folder). */
  scratchDir?: string;
  /** The plan a user's features come from: their organisation's when they belong to one, else their own (the PDF report is for pro and enterprise). */
  planOf(principal: Principal): Promise<string>;
  /** The names of an organisation's sites and crews, archived ones included. */
  unitNames(orgId: string): Promise<UnitNames>;
  /** An organisation's name and the time zone its reports are written in (issue 54). */
  orgProfile(orgId: string): Promise<OrgProfile>;
  clock?: () => Date;
}
