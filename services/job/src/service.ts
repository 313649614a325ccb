import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { JobProgressSchema } from '@baret/proto';
import {
  decodeEnvelope,
  ForbiddenError,
  handleCommand,
  NotFoundError,
  projectInline,
  PROGRESS_TOPIC,
  runConsumer,
  ValidationError,
  type BackgroundTask,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type ObjectStore,
  type Principal,
  type QuotaClient,
  type ServiceModule,
  type TaskCatalogClient,
  type VideoProber,
} from '@baret/platform';
import type { Logger } from 'pino';
import { jobRoutes } from './api.js';
import { jobDecider, type JobCommand } from './job/businessLogic.js';
import { isFinished, jobStream, type JobEvent } from './job/job.js';
import { parsePayload } from './params.js';
import { JOBS, jobsProjection, USAGE, usageProjection, type JobDoc, type UsageDoc } from './readModels/jobs.js';
import type { ReceivedUpload } from './upload.js';

export const QUOTA_DETAIL = 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.';

export interface JobOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  objects: ObjectStore;
  bus: MessageBus;
  quota: QuotaClient;
  tasks: TaskCatalogClient;
  probe: VideoProber;
  maxUploadBytes: number;
  log: Logger;
  clock?: () => Date;
}

/** Every object key a job owns: its raw video and everything the analysis saved for it. */
export const jobPrefixes = (jobId: string): string[] => [`uploads/${jobId}/`, `jobs/${jobId}/`];

/** The job service: uploads, the job aggregate, job queries, admin cancel and delete, usage. */
export function createJobService(opts: JobOptions) {
  const { eventStore, documents, objects, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const jobs = documents.collection<JobDoc>(JOBS);
  const usage = documents.collection<UsageDoc>(USAGE);

  const run = async (jobId: string, command: JobCommand, metadata?: Record<string, unknown>) => {
    const result = await handleCommand(eventStore, jobStream(jobId), jobDecider, command, { metadata });
    await projectInline([jobsProjection], result.recorded, documents);
    await afterEvents(jobId, result.state, result.newEvents);
    return result;
  };

  /** Side effects of a job ending: its quota unit back when owed, its raw video gone. */
  async function afterEvents(jobId: string, state: { status: string; user_id?: string; video_key?: string }, events: JobEvent[]) {
    for (const e of events) {
      const refund = e.type === 'job_cancelled' || (e.type === 'job_failed' && e.data.refund);
      if (refund && state.user_id) await opts.quota.release(state.user_id, jobId, e.type);
      if ((e.type === 'job_completed' || e.type === 'job_failed' || e.type === 'job_cancelled') && state.video_key) {
        await objects.delete(state.video_key);
      }
    }
  }

  async function deleteObjects(jobId: string) {
    for (const prefix of jobPrefixes(jobId)) for (const key of await objects.list(prefix)) await objects.delete(key);
  }

  async function submit(principal: Principal, upload: ReceivedUpload) {
    const params = parsePayload(upload.fields.payload);
    if (params.job_type !== 'auto' && !(await opts.tasks.isTask(params.job_type))) {
      throw new ValidationError(`Unknown job type "${params.job_type}". Use "auto" or a task from GET /tasks.`);
    }
    await opts.probe(upload.path); // 415 for anything that is not a readable video
    const jobId = randomUUID();
    const reservation = await opts.quota.reserve(principal.userId, jobId);
    if (!reservation.ok) throw new ForbiddenError(QUOTA_DETAIL, { limit: reservation.reason });
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
          input_filename: upload.filename.slice(0, 255),
          video_key: videoKey,
          video_size: upload.size,
          params,
          queued_at: clock().toISOString(),
        },
      });
    } catch (e) {
      await objects.delete(videoKey).catch(() => undefined);
      await opts.quota.release(principal.userId, jobId, 'not_queued');
      throw e;
    }
    log.info({ job_id: jobId, user_id: principal.userId, size: upload.size }, 'job queued');
    return { job_id: jobId, status: 'queued' as const };
  }

  /** A job the caller may see: their own, or any for an admin; anything else is "not found". */
  async function visibleJob(principal: Principal, jobId: string): Promise<JobDoc> {
    const job = await jobs.get(jobId);
    if (!job || (job.user_id !== principal.userId && !principal.isAdmin)) throw new NotFoundError('This job does not exist.');
    return job;
  }

  async function cancel(jobId: string, by: string) {
    await run(jobId, { type: 'cancel_job', data: { requested_by: by, now: clock() } });
    const job = await jobs.get(jobId);
    return { job_id: jobId, status: job?.status ?? 'cancelled' };
  }

  async function remove(jobId: string, by: string) {
    await run(jobId, { type: 'delete_job', data: { deleted_by: by, now: clock() } });
    await deleteObjects(jobId);
  }

  /** Appends a progress report of the analysis worker to the job's stream (idempotent by event id). */
  async function recordProgress(report: { job_id: string; event_id: string; type: string; data: Record<string, unknown>; at: string }) {
    const state = await jobs.get(report.job_id);
    if (!state || isFinished(state.status)) return;
    await run(report.job_id, { type: 'record_progress', data: { event: report.type, data: report.data, at: new Date(report.at) } }, { report_id: report.event_id });
  }

  /** A deleted user's jobs go with them: streams closed, read models and objects removed. */
  async function removeUserJobs(userId: string) {
    for (const job of await jobs.find({ where: { user_id: userId } })) {
      if (!isFinished(job.status)) await run(job.id, { type: 'cancel_job', data: { requested_by: 'system:user-deleted', now: clock() } }).catch(() => undefined);
      await deleteObjects(job.id);
      const current = await jobs.get(job.id);
      if (current && isFinished(current.status)) await run(job.id, { type: 'delete_job', data: { deleted_by: 'system:user-deleted', now: clock() } });
      await jobs.delete(job.id);
    }
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
      name: 'job:user-deleted',
      run: (signal) =>
        runConsumer(bus, 'job-users', ['user-events'], async (message) => {
          const event = decodeEnvelope(message.value);
          if (event.type === 'user_deleted') await removeUserJobs(String(event.data.user_id));
        }, signal),
    },
  ];

  const module: ServiceModule = {
    name: 'job',
    tags: [
      { name: 'jobs', description: 'Upload a video and follow its analysis' },
      { name: 'admin', description: 'Administration (admins only)' },
    ],
    routes: jobRoutes({ submit, visibleJob, cancel, remove, jobs, usage, objects, maxUploadBytes: opts.maxUploadBytes }),
    tasks,
  };

  return { module, projections: [jobsProjection, usageProjection], jobs, usage, recordProgress, submit, cancel, remove };
}

export type JobService = ReturnType<typeof createJobService>;
