import { createHash, randomUUID } from 'node:crypto';
import { getMaxListeners, setMaxListeners } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fromBinary } from '@bufbuild/protobuf';
import { JobProgressSchema } from '@baret/proto';
import {
  decodeEnvelope,
  fold,
  handleCommand,
  IllegalStateError,
  isDomainError,
  NotFoundError,
  projectInline,
  PROGRESS_TOPIC,
  quotaAccountOf,
  runConsumer,
  shredderOf,
  ValidationError,
  createAuditRecorder,
  type AuditSource,
  type BackgroundTask,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type ObjectStore,
  type PersonalDataSource,
  type Principal,
  type Projection,
  type QuotaClient,
  type ServiceModule,
  type TaskCatalogClient,
  type VideoProber,
} from '@baret/platform';
import type { Logger } from 'pino';
import { jobRoutes } from './api.js';
import { tusPlugin } from './tus.js';
import { EmailNotVerifiedError, QuotaExceededError } from './errors.js';
import { jobDecider, type JobCommand } from './job/businessLogic.js';
import { isFinished, jobStream, type JobEvent } from './job/job.js';
import { jobContextOf, parsePayload } from './params.js';
import { backfillPeriods, COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS, complianceProjection } from './readModels/compliance.js';
import { CREWS, SITES, siteCrewsProjection, unitCollection, type UnitDoc } from './readModels/siteCrews.js';
import { orgJobRoutes } from './orgApi.js';
import { createSitesCrews } from './sitesCrews.js';
import { ObjectStoreDataStore } from './resumable/tusStore.js';
import { applyJobEvent, JOBS, jobsProjection, ownerStillMayRead, USAGE, usageProjection, type JobDoc, type UsageDoc } from './readModels/jobs.js';
import { JobReadCache } from './readModels/jobsCache.js';
import { cleanFilename, type ReceivedUpload } from './upload.js';
import { recordFinishedJob, reportJobsByStatus } from './metrics.js';
import { COMPLIANCE as COMPLIANCE_JOBS } from './readModels/compliance.js';
import { createRetention, retentionRoutes } from './retention.js';
import { exportRoutes } from './export.js';


export interface JobOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  objects: ObjectStore;
  bus: MessageBus;
  quota: QuotaClient;
  tasks: TaskCatalogClient;
  probe: VideoProber;
  maxUploadBytes: number;
  /** Folder for temporary files (the scratch folder of the data dir); default the system's temp folder. */
  scratchDir?: string;
  /** Hours after which an unused resumable upload is deleted (UPLOAD_EXPIRY_HOURS); default 24. */
  uploadExpiryHours?: number;
  log: Logger;
  clock?: () => Date;
  /** RETENTION_DAYS: the global retention period until an admin sets another; default 365. */
  retentionDays?: number;
  /** Other services' parts of a person's export (profile, notifications, audit entries), by file. */
  exportSources?: readonly PersonalDataSource[];
  /** RETENTION_SWEEP_MINUTES: how often jobs past their period are looked for (and at start); default 60. */
  retentionSweepMinutes?: number;
  /** READ_CACHE_ITEMS: most list items the read cache holds (0: no cache); default 20,000 (docs/adr/0019). */
  readCacheItems?: number;
}

/** The events that end a job (counted in /metrics). */
const JOB_ENDS = new Set(['job_completed', 'job_failed', 'job_cancelled']);

/** Every object key a job owns: its raw video and everything the analysis saved for it. */
export const jobPrefixes = (jobId: string): string[] => [`uploads/${jobId}/`, `jobs/${jobId}/`];

/** The job a resumable upload becomes: always the same id for the same upload (a name-based UUID). */
export function jobIdOfUpload(uploadId: string): string {
  const h = createHash('sha256').update(`baret:upload-job:${uploadId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version 5 layout (name-based)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The job service: uploads, the job aggregate, job queries, admin cancel and delete, usage. */
export function createJobService(opts: JobOptions) {
  const { eventStore, documents, objects, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const jobs = documents.collection<JobDoc>(JOBS);
  const usage = documents.collection<UsageDoc>(USAGE);
  // Users' own job lists and jobs in memory, dropped as the jobs projection applies their events
  // (inline after a command here, and by this replica's catch-up runner for every replica's).
  const cache = new JobReadCache({ maxItems: opts.readCacheItems });
  const jobsView: Projection = {
    ...jobsProjection,
    async apply(event, docs, events) {
      const { jobId, owners } = await applyJobEvent(event, docs, events);
      cache.changed(jobId, owners);
    },
    caughtUp: () => cache.caughtUp(),
    stopped: () => cache.stopped(),
  };
  const expiryMs = Math.round((opts.uploadExpiryHours ?? 24) * 3600_000);
  /** Resumable (tus) uploads, kept through the object store port; the gateway serves them. */
  const resumable = new ObjectStoreDataStore({ objects, expiryMs, now: clock, log: log.child({ component: 'tus' }) });

  const sitesCrews = createSitesCrews({ eventStore, documents, clock });
  // Audit entries of this service's actions (issue 30, docs/adr/0023); the identity service keeps the log.
  const audit = createAuditRecorder({ eventStore, source: 'job', clock, log });

  const run = async (jobId: string, command: JobCommand, metadata?: Record<string, unknown>) => {
    const result = await handleCommand(eventStore, jobStream(jobId), jobDecider, command, { metadata });
    await projectInline([jobsView, complianceProjection], result.recorded, documents, eventStore);
    await afterEvents(jobId, result.state, result.newEvents);
    if (result.newEvents.some((e) => JOB_ENDS.has(e.type))) {
      recordFinishedJob(await eventStore.readStream(jobStream(jobId)), await jobs.get(jobId));
    }
    return result;
  };

  /** Side effects of a job ending: its quota unit back when owed, its raw video gone. */
  async function afterEvents(jobId: string, state: { status: string; user_id?: string; org_id?: string | null; video_key?: string }, events: JobEvent[]) {
    for (const e of events) {
      const refund = e.type === 'job_cancelled' || (e.type === 'job_failed' && e.data.refund);
      // The unit goes back to the account it was taken from: the organisation's, or the user's.
      if (refund && state.user_id) await opts.quota.release(quotaAccountOf({ userId: state.user_id, orgId: state.org_id }), jobId, e.type);
      if ((e.type === 'job_completed' || e.type === 'job_failed' || e.type === 'job_cancelled') && state.video_key) {
        await objects.delete(state.video_key);
      }
    }
  }

  async function deleteObjects(jobId: string) {
    for (const prefix of jobPrefixes(jobId)) for (const key of await objects.list(prefix)) await objects.delete(key);
  }

  /** Crypto-shredding (docs/adr/0025): the store's keys, when it seals personal data (every Baret composition's does). */
  const shredder = shredderOf(eventStore);

  /**
   * Erases a finished job (retention, or its owner's erasure): its objects, its key (every event
   * payload of the job reads redacted from then on), then `job_purged` recorded once (the stream
   * decides, so two replicas purging at once record it once) and its read-model rows. Each step is
   * idempotent: a purge cut off half-way is finished by the next sweep (the row is still there).
   * Returns whether this call recorded the purge (of two replicas racing, one does).
   */
  async function purge(jobId: string, reason: 'retention' | 'erasure') {
    const state = fold(jobDecider, await eventStore.readStream(jobStream(jobId)));
    if (state.status === 'queued' || state.status === 'running') throw new IllegalStateError('Only finished jobs can be purged.');
    // Objects and key first: once the job's row is gone (the event's projection), nothing of it is left.
    const before = await jobs.get(jobId);
    await deleteObjects(jobId);
    await shredder?.shred(`job:${jobId}`);
    const recorded = await run(jobId, { type: 'purge_job', data: { reason, now: clock() } });
    await documents.collection(COMPLIANCE_JOBS).delete(jobId);
    await jobs.delete(jobId);
    cache.changed(jobId, before ? [before.user_id] : []);
    const won = recorded.newEvents.length > 0;
    if (won) log.info({ job_id: jobId, reason }, 'job purged');
    // The audit log keeps the deletion (ADR 0023): once, keyed by the purge event, with no actor.
    const made = recorded.recorded.find((e) => e.type === 'job_purged');
    if (made) await audit.record({ action: 'job.deleted', actorId: null, orgId: before?.org_id ?? null, objectType: 'job', objectId: jobId, details: { by: reason }, key: made.id });
    return won;
  }
  const retention = createRetention({ documents, jobs, defaultDays: opts.retentionDays ?? 365, clock, purge: (id, reason) => purge(id, reason), log });

  /** The job a principal already has under `jobId`, if any (an upload submitted again). */
  async function existingJob(principal: Principal, jobId: string) {
    const state = fold(jobDecider, await eventStore.readStream(jobStream(jobId)));
    if (state.status === 'none') return null;
    if (state.status === 'deleted' || state.user_id !== principal.userId) throw new NotFoundError('This upload does not exist or has expired. Please upload the video again.');
    return { job_id: jobId, status: 'queued' as const };
  }

  /**
   * Queues a video as a job. `jobId` is given when the same video may be submitted more than once
   * (a resumable upload: the page and the service worker can both send it): the job's stream can
   * be created once only, so whichever request comes second gets the first one's job, and the
   * quota reservation, idempotent by job id, is spent once.
   */
  async function submit(principal: Principal, upload: ReceivedUpload, givenJobId?: string) {
    const jobId = givenJobId ?? randomUUID();
    if (principal.verificationRequired) throw new EmailNotVerifiedError();
    const params = parsePayload(upload.fields.payload);
    if (params.job_type !== 'auto' && !(await opts.tasks.isTask(params.job_type))) {
      throw new ValidationError(`Unknown job type "${params.job_type}". Use "auto" or a task from GET /tasks.`);
    }
    const context = jobContextOf(upload.fields.payload);
    await checkContext(principal, context);
    await opts.probe(upload.path); // 415 for anything that is not a readable video
    // Charged to the organisation when the user belongs to one (the job stays with it), else to the user.
    const account = quotaAccountOf(principal);
    let reservation;
    try {
      reservation = await opts.quota.reserve(account, jobId);
    } catch (e) {
      // No answer (the quota service slow or restarting) does not mean no reservation: it may be
      // stored after this request gave up. A job id made here is this request's alone, so its unit
      // is given back (queued behind the reservation, it lands after it); a unit is never spent on
      // a job that does not exist. (A resumable upload's id may be another request's job too.)
      if (!givenJobId) await opts.quota.release(account, jobId, 'not_queued').catch(() => undefined);
      throw e;
    }
    if (!reservation.ok) throw new QuotaExceededError(reservation.reason, principal.orgRole === 'member');
    const videoKey = `uploads/${jobId}/video`;
    try {
      await objects.put(videoKey, createReadStream(upload.path), { contentType: upload.mimetype || 'application/octet-stream', size: upload.size });
      await run(jobId, {
        type: 'queue_job',
        data: {
          job_id: jobId,
          user_id: principal.userId,
          user_email: principal.email,
          user_full_name: principal.fullName,
          input_filename: cleanFilename(upload.filename),
          video_key: videoKey,
          video_size: upload.size,
          params,
          queued_at: clock().toISOString(),
          org_id: principal.orgId ?? null,
          ...context,
        },
      });
    } catch (e) {
      if (e instanceof IllegalStateError) {
        // Another request queued this very job first: theirs stands, with its unit and its video
        // (unless that job already ended and removed the video: then this copy would stay behind).
        const state = fold(jobDecider, await eventStore.readStream(jobStream(jobId)));
        if (state.status !== 'queued' && state.status !== 'running') await objects.delete(videoKey).catch(() => undefined);
        const same = await existingJob(principal, jobId);
        if (same) return same;
      }
      await objects.delete(videoKey).catch(() => undefined);
      await opts.quota.release(account, jobId, 'not_queued');
      throw e;
    }
    log.info({ job_id: jobId, user_id: principal.userId, size: upload.size }, 'job queued');
    return { job_id: jobId, status: 'queued' as const };
  }

  /**
   * A finished resumable upload becomes a job exactly like a multipart one (same validation,
   * probing and quota). Its objects go once it is a job or is rejected; a retry of a request whose
   * answer was lost gets the same job again.
   */
  async function submitResumable(principal: Principal, uploadId: string, fields: Record<string, string>) {
    const jobId = jobIdOfUpload(uploadId);
    const earlier = await existingJob(principal, jobId);
    if (earlier) return earlier;
    let finished;
    try {
      finished = await resumable.finished(uploadId, principal.userId);
    } catch (e) {
      // A concurrent request may have turned it into its job and removed it in the meantime.
      const queued = e instanceof NotFoundError ? await existingJob(principal, jobId) : null;
      if (queued) return queued;
      throw e;
    }
    const path = join(opts.scratchDir ?? tmpdir(), `baret-upload-${randomUUID()}`);
    try {
      await pipeline(await finished.open(), createWriteStream(path));
      const started = await submit(principal, {
        path,
        filename: finished.filename,
        mimetype: finished.filetype,
        size: finished.size,
        fields,
        discard: () => rm(path, { force: true }),
      }, jobId);
      await resumable.consumed(uploadId, principal.userId, started.job_id);
      return started;
    } catch (e) {
      // Rejected (bad settings, not a video, quota): the upload cannot become a job as it is.
      if (isDomainError(e) && e.status < 500) await resumable.remove(uploadId).catch(() => undefined);
      throw e;
    } finally {
      await rm(path, { force: true });
    }
  }

  /** A site or crew named with a video must be an active one of the user's organisation. */
  async function checkContext(principal: Principal, context: { site_id: string | null; crew_id: string | null }) {
    for (const kind of ['site', 'crew'] as const) {
      const id = context[`${kind}_id`];
      if (!id) continue;
      const unit = principal.orgId ? await documents.collection<UnitDoc>(unitCollection(kind)).get(id) : null;
      if (!unit || unit.org_id !== principal.orgId || unit.archived) {
        throw new ValidationError(kind === 'site' ? 'This site does not exist in your organisation.' : 'This crew does not exist in your organisation.');
      }
    }
  }

  /**
   * A job the caller may see: their own; for a manager, any job of their organisation; any for an
   * admin. Anything else is "not found", another organisation's job included.
   */
  async function visibleJob(principal: Principal, jobId: string): Promise<JobDoc> {
    // Kept in memory for its owner only: what others may see of it is read afresh.
    const job = await cache.job(jobId, () => jobs.get(jobId), (doc) => doc.user_id === principal.userId);
    const managerOf = principal.orgRole === 'manager' && !!job?.org_id && job.org_id === principal.orgId;
    // A job recorded for an organisation stays with it: its owner reads it only while a member (issue 37).
    const owner = !!job && job.user_id === principal.userId && ownerStillMayRead(job, principal);
    if (!job || (!owner && !principal.isAdmin && !managerOf)) throw new NotFoundError('This job does not exist.');
    return job;
  }

  /**
   * The audit entry of a cancellation or deletion, keyed by the job event that made it: a retried
   * or concurrent second request adds no event, so no second entry. `by` is a user id, or
   * `system:<why>` (a deleted account, retention): then the entry has no actor and says why.
   */
  async function auditJobChange(action: 'job.cancelled' | 'job.deleted', job: JobDoc | null, jobId: string, by: string, events: ReadonlyArray<{ id: string; type: string }>, from: AuditSource) {
    const made = events.find((e) => e.type === (action === 'job.deleted' ? 'job_deleted' : 'job_cancel_requested'));
    if (!made) return;
    const system = by.startsWith('system:');
    await audit.record({
      action,
      actorId: system ? null : by,
      orgId: job?.org_id ?? null,
      objectType: 'job',
      objectId: jobId,
      ip: from.ip,
      userAgent: from.userAgent,
      details: { ...(system ? { by: by.slice('system:'.length) } : {}), ...(job && job.user_id !== by ? { owner: job.user_id } : {}) },
      key: made.id,
    });
  }

  async function cancel(jobId: string, by: string, from: AuditSource = {}) {
    const before = await jobs.get(jobId);
    const result = await run(jobId, { type: 'cancel_job', data: { requested_by: by, now: clock() } });
    await auditJobChange('job.cancelled', before, jobId, by, result.recorded, from);
    const job = await jobs.get(jobId);
    return { job_id: jobId, status: job?.status ?? 'cancelled' };
  }

  /** Deletes a job; `by` a user id or `system:<why>` (retention: `system:retention`), recorded in the audit log. */
  async function remove(jobId: string, by: string, from: AuditSource = {}) {
    const before = await jobs.get(jobId);
    const result = await run(jobId, { type: 'delete_job', data: { deleted_by: by, now: clock() } });
    await auditJobChange('job.deleted', before, jobId, by, result.recorded, from);
    await deleteObjects(jobId);
    // A deleted job's personal data goes from its events too.
    await shredder?.shred(`job:${jobId}`);
  }

  /**
   * Appends a progress report of the analysis worker to the job's stream, once: a report whose
   * event id is already in the stream (redelivered, or reported again by a worker resuming the
   * job after a restart) changes nothing.
   */
  async function recordProgress(report: { job_id: string; event_id: string; type: string; data: Record<string, unknown>; at: string }) {
    // The stream decides, not the read model: a report may arrive before the job's document is
    // written (the worker can be faster than the inline projection), and must not be dropped then.
    const recorded = await eventStore.readStream(jobStream(report.job_id));
    if (recorded.length === 0) return;
    if (isFinished(fold(jobDecider, recorded).status)) return;
    if (recorded.some((e) => e.metadata.report_id === report.event_id)) return;
    await run(report.job_id, { type: 'record_progress', data: { event: report.type, data: report.data, at: new Date(report.at) } }, { report_id: report.event_id });
  }

  /**
   * A finished job recorded without a video (`npm run admin -- seed-demo`): queued, started and
   * completed through the job's decider like any other, so every read model (the compliance one
   * included) is projected from its events. Charged to the principal's account like an upload.
   */
  async function recordFinishedJobWithoutVideo(
    principal: Principal,
    input: {
      queued_at: Date;
      finished_at: Date;
      job_type: string;
      input_filename: string;
      result: Record<string, unknown>;
      site_id: string | null;
      crew_id: string | null;
      work_order: string | null;
      /** The video's length, as the analysis would have read it. */
      video_duration_sec?: number;
    },
  ) {
    const jobId = randomUUID();
    await checkContext(principal, input);
    const reservation = await opts.quota.reserve(quotaAccountOf(principal), jobId);
    if (!reservation.ok) throw new QuotaExceededError(reservation.reason, principal.orgRole === 'member');
    const params = { job_type: input.job_type, sampling: 'person' as const, target_composites: 6, frames_per_composite: 4, dedupe_by_equipment: true };
    await run(jobId, {
      type: 'queue_job',
      data: {
        job_id: jobId,
        user_id: principal.userId,
        user_email: principal.email,
        user_full_name: principal.fullName,
        input_filename: input.input_filename,
        video_key: '',
        video_size: 0,
        params,
        queued_at: input.queued_at.toISOString(),
        org_id: principal.orgId ?? null,
        site_id: input.site_id,
        crew_id: input.crew_id,
        work_order: input.work_order,
      },
    });
    await run(jobId, { type: 'record_progress', data: { event: 'job_started', data: {}, at: input.queued_at } });
    if (input.video_duration_sec !== undefined) await run(jobId, { type: 'record_progress', data: { event: 'video_opened', data: { duration_sec: input.video_duration_sec }, at: input.queued_at } });
    await run(jobId, { type: 'record_progress', data: { event: 'job_completed', data: { result: input.result }, at: input.finished_at } });
    return jobId;
  }

  /**
   * A deleted (or erased, issue 30) user's jobs: their own jobs are stopped and purged; jobs of an
   * organisation stay with it, anonymised (the owner's name and address gone from the read model,
   * and from the job's events with the user's key). Their usage row goes.
   */
  async function removeUserJobs(userId: string) {
    for (const job of await jobs.find({ where: { user_id: userId } })) {
      if (!isFinished(job.status)) await run(job.id, { type: 'cancel_job', data: { requested_by: 'system:user-deleted', now: clock() } }).catch(() => undefined);
      const current = await jobs.get(job.id);
      if (!current) continue;
      if (current.org_id) {
        await jobs.put(job.id, { ...current, user_email: '', user_full_name: null, owner_deleted: true });
      } else if (isFinished(current.status)) {
        await purge(job.id, 'erasure');
      } else {
        await deleteObjects(job.id);
        await jobs.delete(job.id);
      }
      cache.changed(job.id, [userId]);
    }
    await shredder?.shred(`user:${userId}`);
    await usage.delete(userId);
  }

  const tasks: BackgroundTask[] = [
    {
      name: 'job:progress',
      run: (signal) =>
        runConsumer(bus, 'job-progress', [PROGRESS_TOPIC], async (message) => {
          const p = fromBinary(JobProgressSchema, message.value);
          await recordProgress({ job_id: p.jobId, event_id: p.eventId, type: p.type, data: p.data ?? {}, at: p.at });
        }, signal),
    },
    {
      // Weeks and months of a compliance read model from before they existed: once, at start.
      name: 'job:compliance-periods',
      run: async (signal) => {
        const n = await backfillPeriods(documents);
        if (n > 0) log.info({ periods: n }, 'compliance weeks and months computed from the days');
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    },
    // /metrics: jobs by status, from the read model.
    { name: 'job:metrics', run: (signal) => reportJobsByStatus(jobs, signal) },
    {
      name: 'job:user-deleted',
      run: (signal) =>
        runConsumer(bus, 'job-users', ['user-events'], async (message) => {
          const event = decodeEnvelope(message.value);
          if (event.type === 'user_deleted') await removeUserJobs(String(event.data.user_id));
        }, signal),
    },
    {
      name: 'job:retention',
      run: async (signal) => {
        // At start, then every RETENTION_SWEEP_MINUTES.
        const every = (opts.retentionSweepMinutes ?? 60) * 60_000;
        setMaxListeners(Math.max(getMaxListeners(signal), 50), signal);
        while (!signal.aborted) {
          await retention.sweep().catch((err: unknown) => log.warn({ err }, 'retention sweep failed'));
          await new Promise<void>((resolve) => {
            const stop = () => (clearTimeout(timer), resolve());
            const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), every);
            signal.addEventListener('abort', stop, { once: true });
          });
        }
      },
    },
    {
      name: 'job:upload-expiry',
      run: async (signal) => {
        // Abandoned resumable uploads: swept at start and then every quarter of the expiry (at most hourly).
        const every = Math.max(60_000, Math.min(3600_000, expiryMs / 4));
        // Every background task of the process waits on this one signal.
        setMaxListeners(Math.max(getMaxListeners(signal), 50), signal);
        while (!signal.aborted) {
          await resumable.deleteExpired().catch((err: unknown) => log.warn({ err }, 'expired upload sweep failed'));
          await new Promise<void>((resolve) => {
            const stop = () => (clearTimeout(timer), resolve());
            const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), every);
            signal.addEventListener('abort', stop, { once: true });
          });
        }
      },
    },
  ];

  const module: ServiceModule = {
    name: 'job',
    tags: [
      { name: 'jobs', description: 'Upload a video and follow its analysis' },
      { name: 'admin', description: 'Administration (admins only)' },
      { name: 'organisations', description: 'Organisations: members, roles and invitations' },
      { name: 'compliance', description: 'Sites, crews and compliance over time of an organisation (managers)' },
    ],
    routes: async (app) => {
      await app.register(
        jobRoutes({
          submit,
          submitResumable,
          visibleJob,
          ownJobs: (userId, key, load) => cache.list(userId, key, load),
          cancel,
          remove,
          jobs,
          usage,
          objects,
          maxUploadBytes: opts.maxUploadBytes,
          scratchDir: opts.scratchDir,
          planOf: async (principal) => (await opts.quota.getQuota(quotaAccountOf(principal))).plan_name,
          unitNames: async (orgId) => {
            const [site, crew] = await Promise.all([sitesCrews.names(orgId, 'site'), sitesCrews.names(orgId, 'crew')]);
            return { site, crew };
          },
          audit,
          clock,
        }),
      );
      await app.register(orgJobRoutes({ sitesCrews, documents, jobs, audit, clock }));
      await app.register(retentionRoutes(retention));
      await app.register(exportRoutes({ jobs, objects, sources: opts.exportSources ?? [], clock, log }));
      // Resumable (tus) uploads at /uploads, kept through the object store port.
      const uploads = { datastore: resumable, withOwner: resumable.withOwner.bind(resumable), ownerOf: resumable.ownerOf.bind(resumable) };
      await app.register(tusPlugin, { uploads, maxBytes: opts.maxUploadBytes });
    },
    tasks,
    indexes: {
      [JOBS]: [{ user_id: 1, created_at: -1 }, { created_at: -1 }, { org_id: 1, created_at: -1 }],
      [USAGE]: [{ total_cost: -1, email: 1 }],
      [COMPLIANCE]: [{ org_id: 1, status: 1, created_at: 1 }],
      [COMPLIANCE_DAYS]: [{ org_id: 1, day: 1 }],
      [COMPLIANCE_PERIODS]: [{ org_id: 1, interval: 1, day: 1 }],
      [SITES]: [{ org_id: 1, name: 1 }],
      [CREWS]: [{ org_id: 1, name: 1 }],
    },
  };

  return { module, projections: [jobsView, usageProjection, complianceProjection, siteCrewsProjection], cache, sitesCrews, recordFinishedJobWithoutVideo, jobs, usage, recordProgress, submit, submitResumable, cancel, remove, resumable, retention, purge, removeUserJobs };
}

export type JobService = ReturnType<typeof createJobService>;
