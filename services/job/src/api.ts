import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  auditSourceOf,
  ForbiddenError,
  IdParams,
  localizeMessage,
  NotFoundError,
  planHasReports,
  preferredLang,
  principalOf,
  problems,
  type AuditAction,
  type AuditRecorder,
  type AuditSource,
  type Collection,
  type Filter,
  type Lang,
  type ObjectStore,
  type Principal,
  ValidationError,
} from '@baret/platform';
import type { JobDoc, StoredResult, UsageDoc } from './readModels/jobs.js';
import { uploadIdOf } from './params.js';
import { dateBound } from './compliance.js';
import { renderJobReport } from './report/pdf.js';
import { receiveForm, type ReceivedUpload } from './upload.js';
import { maySeeUnblurred, unblurredPrefix } from './unblurred.js';

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const StatusSchema = Type.Union(['queued', 'running', 'done', 'error', 'cancelled'].map((s) => Type.Literal(s)));

const JobItemSchema = Type.Object({
  job_id: Str,
  status: StatusSchema,
  created_at: Str,
  input_filename: Str,
  model_used: NullableStr,
  estimated_cost: Type.Union([Type.Number(), Type.Null()]),
  currency: Str,
  error: NullableStr,
  job_type: Type.Optional(Str),
  job_display_name: Type.Optional(NullableStr),
  user_email: Type.Optional(Str),
  user_full_name: Type.Optional(NullableStr),
  site_id: Type.Optional(NullableStr),
  site_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'the site’s name (kept when the site is archived)' })),
  crew_id: Type.Optional(NullableStr),
  crew_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'the crew’s name (kept when the crew is archived)' })),
  work_order: Type.Optional(NullableStr),
  video_duration_sec: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'the length of the video, once the analysis has opened it' })),
  processing_sec: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'how long the analysis took, from its start to its end' })),
  has_violations: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'whether the finished job found violations; null until done' })),
});
const DateParam = Type.String({ maxLength: 40, description: 'YYYY-MM-DD (a whole UTC day) or an ISO date-time' });

const LogSchema = Type.Object({ event: Str, timestamp: Str, data: Type.Optional(Type.Record(Str, Type.Unknown())) });
const Group = Type.Array(Str, { description: 'An equipment group: any one of its codes satisfies it' });
const ViolationSchema = Type.Object({
  group: Group,
  group_name: Str,
  worker: Type.Integer({ minimum: 1, description: 'Number of the worker over the whole video, in order of first appearance (followed from frame to frame by position, camera movement and look; see workers)' }),
  time_sec: Type.Number({ description: "When the worker was first seen: the start of the worker's track (one violation per worker and group, decided from the whole track)" }),
  end_sec: Type.Optional(Type.Number({ description: "When the worker was last seen: the end of the worker's track (equals time_sec for a single frame)" })),
  frames: Type.Optional(Type.Integer({ minimum: 1, description: 'Sampled frames of the track that showed the worker without it' })),
  evidence_sec: Type.Optional(Type.Number({ description: 'Time of the evidence frame: the clearest frame of the track without it (large, confident)' })),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "How sure the verdict is: the frames without it, weighed by the analyzer's confidence, as a share of the frames judged" })),
  box: Type.Object(
    { x: Type.Number(), y: Type.Number(), w: Type.Number(), h: Type.Number() },
    { description: "The worker's box as fractions (0..1) of the evidence frame" },
  ),
  image_url: Type.String({ description: 'The worker cropped out of the frame: GET /jobs/{id}/violations/{n} (owner or admin)' }),
  reason: Type.Optional(
    Type.Union([Type.Literal('other_headgear'), Type.Literal('bare_head'), Type.Null()], {
      description: 'What the worker had instead, when the analyzer can tell: other_headgear (a cap, sun hat, beanie or hood — not a hard hat) or bare_head',
    }),
  ),
  reason_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'The reason in the reader’s language ("cap or hat, not a hard hat", "bare head")' })),
});
/** The documented part of a result; every other field the analysis stores passes through. */
const ResultSchema = Type.Object(
  {
    job_type: Str,
    job_type_source: Type.Optional(
      Type.Union(['manual', 'model', 'fallback'].map((s) => Type.Literal(s)), {
        description: 'manual: chosen by the user; model: recognised by the vision model; fallback: not recognised (the offline analyzer cannot classify), general rules applied',
      }),
    ),
    job_type_confidence: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'The model’s confidence in the job type; 0 for the fallback, null when chosen' })),
    required_groups: Type.Array(Group),
    missing_groups: Type.Array(Group, {
      description: 'Groups a worker was seen without (or that the vision model said were missing); never a group the analyzer cannot check, nor one no worker could be judged for',
    }),
    not_checked: Type.Optional(Type.Array(Group, { description: 'Groups neither satisfied nor missing: beyond what the analyzer checks, or not judged (see not_judged)' })),
    not_judged: Type.Optional(Type.Array(Group, { description: 'Of not_checked, the groups the analyzer checks but no worker could be judged for (no worker seen, or none judged)' })),
    workers_seen: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Workers seen in the sampled frames (null: the analyzer did not say)' })),
    no_worker_seen: Type.Optional(Type.Boolean({ description: 'No sampled frame showed a worker: nothing was judged, nothing is missing, no violation' })),
    note: Type.Optional(Type.String({ description: 'A note for the reader, e.g. "No worker seen — nothing to judge", or what dedupe did not ask a paid model about' })),
    not_asked: Type.Optional(
      Type.Array(Type.Object({ composite_index: Type.Integer({ minimum: 0 }), codes: Type.Array(Str) }), {
        description: 'What "don\'t ask again about missing equipment" left out, per composite (a paid model only, and only where every worker shown was judged already); empty with the built-in analyzer',
      }),
    ),
    satisfied_equipment: Type.Array(Str, { description: 'One item per group seen worn and never violated' }),
    violations: Type.Optional(Type.Array(ViolationSchema, { description: 'Each worker seen without a required group: one item per worker and group, decided from the whole track, at most 12 per group' })),
    workers: Type.Optional(
      Type.Array(
        Type.Object({
          worker: Type.Integer({ minimum: 1 }),
          first_sec: Type.Number({ description: 'When the worker was first seen' }),
          last_sec: Type.Number({ description: 'When the worker was last seen' }),
          frames: Type.Integer({ minimum: 1, description: 'Sampled frames that showed the worker' }),
          items: Type.Record(
            Str,
            Type.Object({
              verdict: Type.Union([Type.Literal('worn'), Type.Literal('missing'), Type.Literal('cannot_tell')]),
              frames_worn: Type.Integer({ minimum: 0 }),
              frames_without: Type.Integer({ minimum: 0 }),
              confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
            }),
            { description: 'By required group (its codes joined by commas): worn, missing, or cannot_tell (seen too briefly, too small or too unclear to decide)' },
          ),
        }),
        { description: 'Every worker followed through the video, with one verdict per required group the analyzer judges (the built-in analyzer: hard hat and hi-vis)' },
      ),
    ),
    missing_evidence: Type.Optional(
      Type.Array(
        Type.Object({
          group: Group,
          violation: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Index into violations, or null: no sampled frame showed the item' }),
          image_url: NullableStr,
        }),
        { description: 'For each missing group, in order: the frame that proves it' },
      ),
    ),
  },
  { additionalProperties: true },
);
type PresentedResult = Static<typeof ResultSchema>;
const JobDetailSchema = Type.Composite([JobItemSchema, Type.Object({ logs: Type.Array(LogSchema), result: Type.Union([ResultSchema, Type.Null()]) })]);

const UsageSchema = Type.Object({
  total_prompt_tokens: Type.Integer(),
  total_completion_tokens: Type.Integer(),
  total_cost: Type.Number(),
  currency: Str,
  users: Type.Array(
    Type.Object({
      user_id: Str,
      email: Str,
      full_name: NullableStr,
      job_count: Type.Integer(),
      total_prompt_tokens: Type.Integer(),
      total_completion_tokens: Type.Integer(),
      total_cost: Type.Number(),
    }),
  ),
});

const bearer = [{ bearer: [] }];

interface Deps {
  submit(principal: Principal, upload: ReceivedUpload): Promise<{ job_id: string; status: 'queued' }>;
  submitResumable(principal: Principal, uploadId: string, fields: Record<string, string>): Promise<{ job_id: string; status: 'queued' }>;
  visibleJob(principal: Principal, jobId: string): Promise<JobDoc>;
  /** A list of the user's own jobs through the read cache: `key` names the query and language, `load` answers it from the store. */
  ownJobs<T>(userId: string, key: string, load: () => Promise<T[]>): Promise<T[]>;
  cancel(jobId: string, by: string, from?: AuditSource): Promise<{ job_id: string; status: string }>;
  remove(jobId: string, by: string, from?: AuditSource): Promise<void>;
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
  clock?: () => Date;
}

/** What the admin job search looks in: what the history rows show. */
const ADMIN_SEARCH_FIELDS = ['id', 'user_email', 'user_full_name', 'input_filename', 'model_used', 'status', 'result.job_type', 'result.names.tr.job_display_name', 'result.names.en.job_display_name'] as const;

function jobTypeName(job: JobDoc, lang: Lang): string | null {
  const names = job.result?.names?.[lang] ?? job.result?.names?.en;
  const name = names?.job_display_name;
  return typeof name === 'string' ? name : null;
}

/** A job as lists show it; its error text in the reader's language. */
/** How an organisation's job shows an owner who erased their account (issue 30). */
const DELETED_USER: Record<Lang, string> = { tr: 'silinmiş kullanıcı', en: 'deleted user' };

export interface UnitNames {
  site: ReadonlyMap<string, string>;
  crew: ReadonlyMap<string, string>;
}
const NO_NAMES: UnitNames = { site: new Map(), crew: new Map() };

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

function listItem(job: JobDoc, withUser: boolean, lang: Lang, names: UnitNames = NO_NAMES) {
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
function presentResult(job: JobDoc, lang: Lang): PresentedResult | null {
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

const UnblurredQuery = Type.Object({
  unblurred: Type.Optional(Type.Boolean({ description: 'The unblurred copy (managers of the job’s organisation only, when it keeps one)' })),
});
const UNBLURRED_DESCRIPTION =
  'Stored evidence has every face blurred (issue 30). `?unblurred=true` answers the unblurred copy, which exists only for jobs of an organisation ' +
  'whose setting `managers_see_unblurred` was on when they were analysed, and only to that organisation’s managers (403 for anyone else, 404 when no copy exists).';

/**
 * Where the evidence a caller asked for is stored: the blurred evidence for anyone who may see the
 * job; the unblurred copy for the managers of the job's organisation only (not its owner, not an admin).
 */
function evidencePrefix(principal: Principal, job: JobDoc, unblurred: boolean | undefined): string {
  if (!unblurred) return `jobs/${job.id}/`;
  if (!maySeeUnblurred(principal, job)) throw new ForbiddenError('Only the managers of the organisation can see unblurred evidence.');
  return unblurredPrefix(job.id);
}

/** Streams a stored evidence JPEG (404 when it does not exist). */
async function sendImage(reply: FastifyReply, objects: ObjectStore, key: string) {
  const head = await objects.head(key);
  if (!head) throw new NotFoundError('This evidence image does not exist.');
  return reply
    .type('image/jpeg')
    .header('content-length', head.size)
    .header('cache-control', 'private, max-age=3600')
    .send(await objects.get(key));
}

const FINISHED = new Set(['done', 'error', 'cancelled']);

export const jobRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    await instance.register(multipart, { limits: { fileSize: deps.maxUploadBytes } });
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const now = () => deps.clock?.() ?? new Date();

    /**
     * A view or download of a job, once: the client's Idempotency-Key makes a retry the same action;
     * without one, the same user, job, action and address within one UTC minute are one action (a
     * page opened, its language switched, a retried request), so polling and retries do not flood the log.
     */
    const auditAccess = async (request: FastifyRequest, principal: Principal, job: JobDoc, action: AuditAction, details: Record<string, string> = {}) => {
      const from = auditSourceOf(request, principal.userId);
      await deps.audit.record({
        action,
        actorId: principal.userId,
        orgId: job.org_id ?? null,
        objectType: 'job',
        objectId: job.id,
        ip: from.ip,
        userAgent: from.userAgent,
        details: { ...details, ...(job.user_id !== principal.userId ? { owner: job.user_id } : {}) },
        key: from.key ?? `${principal.userId}\n${job.id}\n${from.ip ?? ''}\n${now().toISOString().slice(0, 16)}`,
      });
    };

    /** A job as its page, its JSON and its PDF show it: with who recorded it and the names of its site and crew. */
    const jobItem = async (job: JobDoc, lang: Lang) => listItem(job, true, lang, job.org_id ? await deps.unitNames(job.org_id) : NO_NAMES);

    app.post(
      '/analyze',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 30, timeWindow: '1 hour' } },
        schema: {
          tags: ['jobs'],
          summary: 'Upload a video (multipart: file, payload) and queue its analysis; uses one unit of quota',
          description:
            '`payload` is a JSON string: { job_type: "auto" | task slug, sampling: "person" | "uniform", target_composites: 1–20, frames_per_composite: 2–8, dedupe_by_equipment: boolean }, or the same inside `params`. ' +
            'Instead of a `file` part, `payload.upload_id` may name a finished resumable upload (tus, `POST /uploads`) of the same user; it is removed once it becomes a job or is rejected.',
          consumes: ['multipart/form-data'],
          security: bearer,
          response: { 202: Type.Object({ job_id: Str, status: Type.Literal('queued') }), ...problems(400, 401, 403, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const { file, fields } = await receiveForm(request, deps.maxUploadBytes, deps.scratchDir);
        try {
          const uploadId = uploadIdOf(fields.payload);
          if (file && uploadId) throw new ValidationError('Send either a video in "file" or the upload_id of a resumable upload, not both.');
          if (uploadId) return reply.code(202).send(await deps.submitResumable(principalOf(request), uploadId, fields));
          if (!file) throw new ValidationError('Please choose a video to upload (the "file" field is missing).');
          return reply.code(202).send(await deps.submit(principalOf(request), file));
        } finally {
          await file?.discard();
        }
      },
    );

    app.get(
      '/jobs',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'Your jobs, newest first; with scope=org, every job of your organisation (managers)',
          description:
            'Filters: `site_id`, `crew_id`, `user_id` (who recorded it), `status`, `from` and `to` (the day the job was recorded, UTC; `to` includes its day), `has_violations` (finished jobs with or without violations). ' +
            '`scope=org` lists the jobs of every member of your organisation, with who recorded them: managers only (403 for members).',
          security: bearer,
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            scope: Type.Optional(Type.Union([Type.Literal('own'), Type.Literal('org')], { default: 'own' })),
            site_id: Type.Optional(IdParams.properties.id),
            crew_id: Type.Optional(IdParams.properties.id),
            user_id: Type.Optional(IdParams.properties.id),
            status: Type.Optional(StatusSchema),
            from: Type.Optional(DateParam),
            to: Type.Optional(DateParam),
            has_violations: Type.Optional(Type.Boolean()),
          }),
          response: { 200: Type.Array(JobItemSchema), ...problems(400, 401, 403) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const q = request.query;
        const org = q.scope === 'org';
        if (org && (!principal.orgId || principal.orgRole !== 'manager')) throw new ForbiddenError('Only the managers of the organisation can see all of its jobs.');
        const where: Filter = org ? { org_id: principal.orgId! } : { user_id: principal.userId };
        if (q.site_id) where.site_id = q.site_id;
        if (q.crew_id) where.crew_id = q.crew_id;
        // Another person's jobs only within the organisation's list; one's own list stays one's own.
        if (q.user_id && org) where.user_id = q.user_id;
        if (q.status) where.status = q.status;
        if (q.has_violations !== undefined) where.has_violations = q.has_violations;
        if (q.from || q.to) {
          const range: { $gte?: string; $lt?: string } = {};
          if (q.from) range.$gte = dateBound(q.from, 'from', new Date(0));
          if (q.to) range.$lt = dateBound(q.to, 'to', new Date(0));
          where.created_at = range;
        }
        const query = { where, orderBy: [{ field: 'created_at', direction: 'desc' as const }], limit: q.limit };
        const lang = preferredLang(request.headers['accept-language']);
        // One's own jobs are the personal ones and those of the organisation one belongs to now: a job
        // recorded for an organisation one left stays with it (issue 37).
        const orgIds = org ? [undefined] : [null, ...(principal.orgId ? [principal.orgId] : [])];
        const load = async () => {
          const names = principal.orgId ? await deps.unitNames(principal.orgId) : NO_NAMES;
          const found = (await Promise.all(orgIds.map((orgId) => deps.jobs.find(orgId === undefined ? query : { ...query, where: { ...where, org_id: orgId } })))).flat();
          if (orgIds.length > 1) found.sort((a, b) => b.created_at.localeCompare(a.created_at));
          return found.slice(0, q.limit).map((j) => listItem(j, org, lang, names));
        };
        // The user's own list (what the web app polls) comes from the read cache; an organisation's is read afresh.
        return org ? load() : deps.ownJobs(principal.userId, `${lang}\n${principal.orgId ?? ''}\n${JSON.stringify(query)}`, load);
      },
    );

    app.get(
      '/jobs/:id',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'A job with its timeline and result, in the language of Accept-Language',
          security: bearer,
          params: IdParams,
          response: { 200: JobDetailSchema, ...problems(401, 404) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        // A finished job's result is a view for the audit log; the polls of a running one are not.
        if (FINISHED.has(job.status)) await auditAccess(request, principal, job, 'job.viewed');
        return {
          // Where, by whom and for which work order it was recorded: what an auditor asks first.
          ...(await jobItem(job, preferredLang(request.headers['accept-language']))),
          logs: job.logs,
          result: presentResult(job, preferredLang(request.headers['accept-language'])),
        };
      },
    );

    app.get(
      '/jobs/:id/result.json',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 60, timeWindow: '1 minute' } },
        schema: {
          tags: ['jobs'],
          summary: 'The job with its result as a JSON file to keep (the same body as GET /jobs/{id}), recorded in the audit log as a download',
          security: bearer,
          params: IdParams,
          response: { 200: JobDetailSchema, ...problems(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        await auditAccess(request, principal, job, 'job.downloaded_json');
        const lang = preferredLang(request.headers['accept-language']);
        return reply
          .header('content-disposition', `attachment; filename="baret-job-${job.id}.json"`)
          .header('cache-control', 'private, no-store')
          .send({ ...(await jobItem(job, lang)), logs: job.logs, result: presentResult(job, lang) });
      },
    );

    app.get(
      '/jobs/:id/evidence/:n',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'An evidence image (a composite of frames) of a job, faces blurred',
          description: UNBLURRED_DESCRIPTION,
          security: bearer,
          params: Type.Object({ id: IdParams.properties.id, n: Type.Integer({ minimum: 0, maximum: 99 }) }),
          querystring: UnblurredQuery,
          produces: ['image/jpeg'],
          response: { 200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'JPEG image' }), ...problems(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const job = await deps.visibleJob(principalOf(request), request.params.id);
        const key = `${evidencePrefix(principalOf(request), job, request.query.unblurred)}composites/${request.params.n}.jpg`;
        return sendImage(reply, deps.objects, key);
      },
    );

    app.get(
      '/jobs/:id/violations/:n',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'The evidence of a violation: the worker cropped out of the frame that shows it, faces blurred',
          description: UNBLURRED_DESCRIPTION,
          security: bearer,
          params: Type.Object({ id: IdParams.properties.id, n: Type.Integer({ minimum: 0, maximum: 999 }) }),
          querystring: UnblurredQuery,
          produces: ['image/jpeg'],
          response: { 200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'JPEG image' }), ...problems(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const job = await deps.visibleJob(principalOf(request), request.params.id);
        const key = `${evidencePrefix(principalOf(request), job, request.query.unblurred)}violations/${request.params.n}.jpg`;
        return sendImage(reply, deps.objects, key);
      },
    );

    app.get(
      '/jobs/:id/report.pdf',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['jobs'],
          summary: 'The job’s report as a PDF, in Turkish or English (owner or admin; Pro and Enterprise plans)',
          description: 'Job, date, video name, job type, required / worn / missing / not checked equipment, violations with their evidence crops, evidence frames, duration, model and cost.',
          security: bearer,
          params: IdParams,
          querystring: Type.Object({ lang: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])) }),
          produces: ['application/pdf'],
          response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'PDF document' }), ...problems(400, 401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const job = await deps.visibleJob(principal, request.params.id);
        if (!principal.isAdmin && !planHasReports(await deps.planOf(principal))) {
          throw new ForbiddenError('The PDF report is available on the Pro and Enterprise plans.');
        }
        const lang = request.query.lang ?? preferredLang(request.headers['accept-language']);
        await auditAccess(request, principal, job, 'job.downloaded_pdf', { lang });
        // Images the result points to (evidence frames, violation crops) are read through this
        // service's own routes, as the caller: the same authorization, wherever they are stored.
        const { host: _host, 'content-length': _length, accept: _accept, ...headers } = request.headers;
        const image = async (url: string): Promise<Buffer | null> => {
          if (!url.startsWith(`/jobs/${job.id}/`)) return null;
          const res = await app.inject({ method: 'GET', url, headers: { ...headers, accept: 'image/*' } });
          return res.statusCode === 200 && /^image\/(jpeg|png)/.test(String(res.headers['content-type'])) ? res.rawPayload : null;
        };
        const pdf = await renderJobReport({
          job: { ...(await jobItem(job, lang)), result: presentResult(job, lang) },
          lang,
          image,
          now: deps.clock?.() ?? new Date(),
        });
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="baret-job-${job.id}-${lang}.pdf"`)
          .header('cache-control', 'private, no-store')
          .send(pdf);
      },
    );

    app.get(
      '/admin/jobs',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Every user’s jobs, newest first, searchable by id, email, file name, model, status or job type',
          security: bearer,
          querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }), q: Type.Optional(Type.String({ maxLength: 200 })) }),
          response: { 200: Type.Array(JobItemSchema), ...problems(400, 401, 403) },
        },
      },
      async (request) => {
        const q = request.query.q?.trim();
        const found = await deps.jobs.find({
          // the job type as rows show it too: its slug and its name in either language
          ...(q ? { search: { text: q, fields: [...ADMIN_SEARCH_FIELDS] } } : {}),
          orderBy: [{ field: 'created_at', direction: 'desc' }],
          limit: request.query.limit,
        });
        const lang = preferredLang(request.headers['accept-language']);
        return found.map((j) => listItem(j, true, lang));
      },
    );

    app.post(
      '/admin/jobs/:id/cancel',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Stop a queued or running job; its quota unit goes back to the user',
          security: bearer,
          params: IdParams,
          response: { 202: Type.Object({ job_id: Str, status: Str }), ...problems(401, 403, 404, 409) },
        },
      },
      async (request, reply) => reply.code(202).send(await deps.cancel(request.params.id, principalOf(request).userId, auditSourceOf(request))),
    );

    app.delete(
      '/admin/jobs/:id',
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary: 'Delete a finished job with everything stored for it',
          security: bearer,
          params: IdParams,
          response: { 204: Type.Null(), ...problems(401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await deps.remove(request.params.id, principalOf(request).userId, auditSourceOf(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/admin/usage',
      {
        preHandler: app.requireAdmin,
        schema: { tags: ['admin'], summary: 'Tokens and cost, per user and in total', security: bearer, response: { 200: UsageSchema, ...problems(401, 403) } },
      },
      async () => {
        const rows = await deps.usage.find({ orderBy: [{ field: 'total_cost', direction: 'desc' }, { field: 'email' }] });
        const round = (n: number) => Math.round(n * 1e6) / 1e6;
        return {
          total_prompt_tokens: rows.reduce((s, r) => s + r.total_prompt_tokens, 0),
          total_completion_tokens: rows.reduce((s, r) => s + r.total_completion_tokens, 0),
          total_cost: round(rows.reduce((s, r) => s + r.total_cost, 0)),
          currency: 'USD',
          users: rows.map((r) => ({
            user_id: r.id,
            email: r.email,
            full_name: r.full_name,
            job_count: r.job_count,
            total_prompt_tokens: r.total_prompt_tokens,
            total_completion_tokens: r.total_completion_tokens,
            total_cost: r.total_cost,
          })),
        };
      },
    );
  };
