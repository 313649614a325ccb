/** What the report reads from a job as GET /jobs/{id} presents it: its facts, its violations, its evidence frames. */

/** The job as GET /jobs/{id} presents it, in the report's language. */
export interface ReportJob {
  job_id: string;
  status: string;
  created_at: string;
  input_filename: string | null;
  model_used: string | null;
  estimated_cost: number | null;
  currency: string | null;
  error: string | null;
  user_email?: string | null;
  user_full_name?: string | null;
  site_name?: string | null;
  crew_name?: string | null;
  work_order?: string | null;
  video_duration_sec?: number | null;
  processing_sec?: number | null;
  /** The organisation the job was recorded in (null: a personal job) and its name, when known. */
  org_id?: string | null;
  org_name?: string | null;
  /** The job's timeline, as the job page shows it. */
  logs?: ReadonlyArray<{ event: string; timestamp: string; data?: Record<string, unknown> | null }>;
  result: Record<string, unknown> | null;
}

export interface Violation {
  /** The group's codes: which part of the worker the evidence is about (a hard hat: the head). */
  group: string[];
  group_name: string;
  worker: number;
  time_sec: number;
  /** Last frame of the run (absent in results stored before workers were followed across frames). */
  end_sec: number | null;
  frames: number | null;
  /** Time of the evidence frame, the clearest of the track without it (absent in results stored before issue 51). */
  evidence_sec: number | null;
  /** What the worker had instead ("cap or hat, not a hard hat", "bare head"), in the report's language. */
  reason_name: string | null;
  /** Null for a violation added by a reviewer (no crop). */
  image_url: string | null;
  /** The review standing for it (issue 53), null when not reviewed. */
  review: { verdict: string; by_name: string | null; at: string; note: string | null } | null;
  dismissed: boolean;
  added_by_review: boolean;
  reviewed_verdict: string | null;
}

export interface EvidenceFrame {
  name: string;
  composite_index: number;
  image_url: string;
}

export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
export const groups = (v: unknown): string[][] => (Array.isArray(v) ? v.map(strings) : []);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const sameGroup = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('|') === [...b].sort().join('|');

/** Violations when the result has them (the field is optional); malformed entries are skipped. */
export function violationsOf(result: Record<string, unknown> | null): Violation[] {
  const raw = result?.violations;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((v: unknown) => {
    if (typeof v !== 'object' || v === null) return [];
    const r = v as Record<string, unknown>;
    const worker = num(r.worker);
    const time = num(r.time_sec);
    if (worker === null || time === null || (typeof r.image_url !== 'string' && r.image_url !== null)) return [];
    const review = typeof r.review === 'object' && r.review !== null ? (r.review as Violation['review']) : null;
    return [
      {
        group: strings(r.group),
        group_name: typeof r.group_name === 'string' ? r.group_name : strings(r.group).join(' / '),
        worker,
        time_sec: time,
        end_sec: num(r.end_sec),
        frames: num(r.frames),
        evidence_sec: num(r.evidence_sec),
        reason_name: typeof r.reason_name === 'string' ? r.reason_name : null,
        image_url: typeof r.image_url === 'string' ? r.image_url : null,
        review,
        dismissed: r.dismissed === true,
        added_by_review: r.added_by_review === true,
        reviewed_verdict: typeof r.reviewed_verdict === 'string' ? r.reviewed_verdict : null,
      },
    ];
  });
}

/** One frame per composite that holds evidence, with the names of what was seen in it. */
export function evidenceFramesOf(result: Record<string, unknown> | null): EvidenceFrame[] {
  const raw = Array.isArray(result?.evidence) ? (result.evidence as Array<Record<string, unknown>>) : [];
  const byComposite = new Map<number, EvidenceFrame>();
  for (const e of raw) {
    const index = num(e.composite_index);
    if (index === null || typeof e.image_url !== 'string') continue;
    const name = typeof e.name === 'string' ? e.name : String(e.code ?? '');
    const frame = byComposite.get(index);
    if (frame) frame.name = frame.name.split(', ').includes(name) ? frame.name : `${frame.name}, ${name}`;
    else byComposite.set(index, { name, composite_index: index, image_url: e.image_url });
  }
  return [...byComposite.values()].sort((a, b) => a.composite_index - b.composite_index);
}

/** The model that judged the job; the built-in checker is named by what it is, not its internal description (issue 40). */
export function modelOf(job: ReportJob): { model: string; offline: boolean } {
  const result = job.result;
  const model = (typeof result?.model_used === 'string' ? result.model_used : job.model_used) || '';
  return { model, offline: model.startsWith('baret-offline') };
}
