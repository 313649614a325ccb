import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fold, IllegalStateError, isDomainError, NotFoundError, quotaAccountOf, ValidationError, type Principal } from '@baret/platform';
import { EmailNotVerifiedError, QuotaExceededError } from '../errors.js';
import { jobContextOf, parsePayload } from '../params.js';
import { unitCollection, type UnitDoc } from '../readModels/siteCrews.js';
import { cleanFilename, type ReceivedUpload } from '../upload.js';
import { jobDecider } from './businessLogic.js';
import type { JobDeps } from './deps.js';
import { jobStream } from './job.js';
import { runJob } from './run.js';

/** The job a resumable upload becomes: always the same id for the same upload (a name-based UUID). */
export function jobIdOfUpload(uploadId: string): string {
  const h = createHash('sha256').update(`baret:upload-job:${uploadId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version 5 layout (name-based)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The job a principal already has under `jobId`, if any (an upload submitted again). */
async function existingJob(deps: JobDeps, principal: Principal, jobId: string) {
  const state = fold(jobDecider, await deps.eventStore.readStream(jobStream(jobId)));
  if (state.status === 'none') return null;
  if (state.status === 'deleted' || state.user_id !== principal.userId) throw new NotFoundError('This upload does not exist or has expired. Please upload the video again.');
  return { job_id: jobId, status: 'queued' as const };
}

/** A site or crew named with a video must be an active one of the user's organisation. */
export async function checkContext(deps: Pick<JobDeps, 'documents'>, principal: Principal, context: { site_id: string | null; crew_id: string | null }) {
  for (const kind of ['site', 'crew'] as const) {
    const id = context[`${kind}_id`];
    if (!id) continue;
    const unit = principal.orgId ? await deps.documents.collection<UnitDoc>(unitCollection(kind)).get(id) : null;
    if (!unit || unit.org_id !== principal.orgId || unit.archived) {
      throw new ValidationError(kind === 'site' ? 'This site does not exist in your organisation.' : 'This crew does not exist in your organisation.');
    }
  }
}

/**
 * Queues a video as a job. `jobId` is given when the same video may be submitted more than once
 * (a resumable upload: the page and the service worker can both send it): the job's stream can
 * be created once only, so whichever request comes second gets the first one's job, and the
 * quota reservation, idempotent by job id, is spent once.
 */
export async function submit(deps: JobDeps, principal: Principal, upload: ReceivedUpload, givenJobId?: string) {
  const { eventStore, objects, clock, log } = deps;
  const jobId = givenJobId ?? randomUUID();
  if (principal.verificationRequired) throw new EmailNotVerifiedError();
  const params = parsePayload(upload.fields.payload);
  if (params.job_type !== 'auto' && !(await deps.tasks.isTask(params.job_type))) {
    throw new ValidationError(`Unknown job type "${params.job_type}". Use "auto" or a task from GET /tasks.`);
  }
  const context = jobContextOf(upload.fields.payload);
  await checkContext(deps, principal, context);
  await deps.probe(upload.path); // 415 for anything that is not a readable video
  // Charged to the organisation when the user belongs to one (the job stays with it), else to the user.
  const account = quotaAccountOf(principal);
  let reservation;
  try {
    reservation = await deps.quota.reserve(account, jobId);
  } catch (e) {
    // No answer (the quota service slow or restarting) does not mean no reservation: it may be
    // stored after this request gave up. A job id made here is this request's alone, so its unit
    // is given back (queued behind the reservation, it lands after it); a unit is never spent on
    // a job that does not exist. (A resumable upload's id may be another request's job too.)
    if (!givenJobId) await deps.quota.release(account, jobId, 'not_queued').catch(() => undefined);
    throw e;
  }
  if (!reservation.ok) throw new QuotaExceededError(reservation.reason, principal.orgRole === 'member');
  const videoKey = `uploads/${jobId}/video`;
  try {
    await objects.put(videoKey, createReadStream(upload.path), { contentType: upload.mimetype || 'application/octet-stream', size: upload.size });
    await runJob(deps, jobId, {
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
      const same = await existingJob(deps, principal, jobId);
      if (same) return same;
    }
    await objects.delete(videoKey).catch(() => undefined);
    await deps.quota.release(account, jobId, 'not_queued');
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
export async function submitResumable(deps: JobDeps, principal: Principal, uploadId: string, fields: Record<string, string>) {
  const { resumable } = deps;
  const jobId = jobIdOfUpload(uploadId);
  const earlier = await existingJob(deps, principal, jobId);
  if (earlier) return earlier;
  let finished;
  try {
    finished = await resumable.finished(uploadId, principal.userId);
  } catch (e) {
    // A concurrent request may have turned it into its job and removed it in the meantime.
    const queued = e instanceof NotFoundError ? await existingJob(deps, principal, jobId) : null;
    if (queued) return queued;
    throw e;
  }
  const path = join(deps.scratchDir ?? tmpdir(), `baret-upload-${randomUUID()}`);
  try {
    await pipeline(await finished.open(), createWriteStream(path));
    const started = await submit(deps, principal, {
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
