import type { Principal } from './http/auth.js';

/**
 * What one service asks of another synchronously. The interfaces live here so that no service
 * imports another: the composition root wires an implementation (a direct call in the embedded
 * run, an HTTP client in the distributed one).
 */

export interface QuotaView {
  plan_name: string;
  daily_limit: number | null;
  monthly_limit: number | null;
  lifetime_limit: number | null;
  daily_used: number;
  monthly_used: number;
  lifetime_used: number;
  can_analyze: boolean;
}

export type ReservationOutcome = { ok: true } | { ok: false; reason: 'daily' | 'monthly' | 'lifetime' };

export interface QuotaClient {
  getQuota(userId: string): Promise<QuotaView>;
  /** Reserve one unit for a job; idempotent by job id. */
  reserve(userId: string, jobId: string): Promise<ReservationOutcome>;
  /** Give a job's unit back (job failed on our side, or was cancelled); idempotent. */
  release(userId: string, jobId: string, reason: string): Promise<void>;
}

export interface UserSummary {
  id: string;
  email: string;
  full_name: string | null;
}

export interface OrgSummary {
  id: string;
  name: string;
  member_count: number;
}

export interface UserDirectory {
  /** Users by id; unknown or deleted ids are left out. */
  getUsers(ids: readonly string[]): Promise<UserSummary[]>;
  listUsers(): Promise<UserSummary[]>;
  /** Every organisation (the admin page manages their plans and quotas). */
  listOrgs(): Promise<OrgSummary[]>;
}

/**
 * The quota account a user's analyses are charged to: their organisation's when they belong to
 * one, else their own. An organisation's account id cannot be taken for a user id (users are UUIDs).
 */
export const orgQuotaAccount = (orgId: string): string => `org_${orgId}`;
export const quotaAccountOf = (who: { userId: string; orgId?: string | null }): string => (who.orgId ? orgQuotaAccount(who.orgId) : who.userId);

export type Lang = 'tr' | 'en';

/**
 * A service's part of a person's data for their export (`GET /me/export`, issue 30): one JSON file
 * of the ZIP. The composition root hands the job service (which writes the ZIP) one per service
 * that keeps personal data: identity (profile.json, with the audit log's entries about the person)
 * and notification (notifications.json).
 */
export interface PersonalDataSource {
  /** The file's name in the ZIP, e.g. "notifications.json". */
  file: string;
  collect(principal: Principal): Promise<unknown>;
}

/** The task catalogue, owned by the analysis service. */
export interface TaskCatalogClient {
  isTask(slug: string): Promise<boolean>;
}

/** A video as ffprobe describes it (displayed size, after rotation). */
export interface ProbedVideo {
  durationSec: number;
  width: number;
  height: number;
  fps: number;
  codec: string;
  /** Container format name as ffprobe reports it. */
  format: string;
}

/** Reads a video file's streams; throws an UnsupportedMediaTypeError for anything that is not a readable video. */
export type VideoProber = (path: string) => Promise<ProbedVideo>;

/** Topic of the analysis worker's progress reports (JobProgress), keyed by job id. */
export const PROGRESS_TOPIC = 'analysis-progress';

/**
 * An organisation's evidence privacy settings (issue 30, ADR 0024), owned by the identity service
 * and followed by the analysis service from the `org-events` topic.
 */
export interface EvidencePrivacy {
  /** Frames sent to a third-party vision model have their faces blurred too. */
  blur_third_party: boolean;
  /** An unblurred copy of the evidence is kept, readable by the organisation's managers only. */
  managers_see_unblurred: boolean;
}

/** What every job without an organisation, and every organisation that never changed them, gets. */
export const DEFAULT_EVIDENCE_PRIVACY: Readonly<EvidencePrivacy> = Object.freeze({ blur_third_party: true, managers_see_unblurred: false });
