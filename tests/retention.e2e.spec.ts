/**
 * Retention on the embedded run (issue 30, docs/adr/0025): an organisation keeps jobs 1 day; a
 * real analysis runs, the clock is moved 2 days, the sweep runs, and the job, its objects (frames,
 * composites, evidence), its read models and the readable personal payload of its events are gone;
 * `job_purged` (nothing personal) is recorded once, and crosses to the bus for the audit log. A
 * personal job under the global 365 days stays. The same acceptance on the distributed run:
 * tests/retention.distributed.e2e.spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeEnvelope, type ShreddingEventStore, type RecordedEvent } from '@baret/platform';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLIANCE } from '../services/job/src/readModels/compliance.js';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, startTestApp, TestClock, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';

/** The real time, moved by `offset` (the analysis runs on real time; the test moves it forward). */
class MovableClock extends TestClock {
  offset = 0;
  override now = (): Date => new Date(Date.now() + this.offset);
}

const DAY = 86_400_000;
let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let clip: Buffer;
const clock = new MovableClock();

beforeAll(async () => {
  fx = await videoFixtures();
  clip = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { clock });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

const FILENAME = 'Direk-Kadikoy-Ayse.mp4';
const raw = (streamId: string): Promise<RecordedEvent[]> => (app.infra.eventStore as ShreddingEventStore).readStreamRaw(streamId);

describe('retention (embedded)', () => {
  it('with retention set to 1 day and the clock moved, the job, its objects, read models and readable event payloads are gone; the purge is recorded', async () => {
    const admin = await app.signUp('admin@baret.test');
    const manager = await app.signUp('ayse.manager@example.com');
    const loner = await app.signUp('loner@example.com');
    const org = (await app.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: 'Kadıköy Elektrik' } })).json() as { id: string };
    // The manager's token carries the organisation once logged in again.
    const relog = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'ayse.manager@example.com', password: 'correct horse battery' } });
    const managerToken = (relog.json() as { access_token: string }).access_token;

    // Settings: the global period (admin) and the organisation's (its manager; not a stranger).
    expect((await app.request({ method: 'GET', url: '/admin/retention', token: admin.token })).json()).toEqual({ days: 365 });
    expect((await app.request({ method: 'GET', url: '/admin/retention', token: loner.token })).statusCode).toBe(403);
    expect((await app.request({ method: 'PUT', url: `/orgs/${org.id}/retention`, token: loner.token, payload: { days: 1 } })).statusCode).toBe(404);
    expect((await app.request({ method: 'PUT', url: `/orgs/${org.id}/retention`, token: managerToken, payload: { days: 0 } })).statusCode).toBe(400);
    const set = await app.request({ method: 'PUT', url: `/orgs/${org.id}/retention`, token: managerToken, payload: { days: 1 } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ days: 1, effective_days: 1, global_days: 365 });

    const params = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 };
    const orgJob = await submitVideo(app, managerToken, clip, params, FILENAME);
    expect(orgJob.statusCode, orgJob.body).toBe(202);
    const jobId = (orgJob.json() as { job_id: string }).job_id;
    const personal = await submitVideo(app, loner.token, clip, params, 'kept.mp4');
    const keptId = (personal.json() as { job_id: string }).job_id;
    expect((await waitForJob(app, managerToken, jobId, undefined, 120_000)).status).toBe('done');
    expect((await waitForJob(app, loner.token, keptId, undefined, 120_000)).status).toBe('done');
    const objectsBefore = await app.infra.objects.list(`jobs/${jobId}/`);
    expect(objectsBefore.length).toBeGreaterThan(0);
    expect(await app.infra.documents.collection(COMPLIANCE).get(jobId)).not.toBeNull();

    // A day later nothing happens yet; two days later the job is past its organisation's period.
    clock.offset = DAY / 2;
    expect(await app.job.retention.sweep()).toBe(0);
    clock.offset = 2 * DAY;
    // Two sweeps at once (two replicas): the job is purged once.
    const swept = await Promise.all([app.job.retention.sweep(), app.job.retention.sweep()]);
    expect(swept[0] + swept[1]).toBe(1);
    expect(await app.job.retention.sweep()).toBe(0);

    const fresh = (await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'ayse.manager@example.com', password: 'correct horse battery' } })).json() as { access_token: string };
    expect((await app.request({ method: 'GET', url: `/jobs/${jobId}`, token: fresh.access_token })).statusCode).toBe(404);
    expect(await app.infra.objects.list(`jobs/${jobId}/`)).toEqual([]);
    expect(await app.infra.objects.list(`uploads/${jobId}/`)).toEqual([]);
    expect(await app.job.jobs.get(jobId)).toBeNull();
    expect(await app.infra.documents.collection(COMPLIANCE).get(jobId)).toBeNull();
    const listed = (await app.request({ method: 'GET', url: '/jobs?scope=org', token: fresh.access_token })).json() as Array<{ job_id: string }>;
    expect(listed.map((j) => j.job_id)).not.toContain(jobId);

    // The events: the file name and the result are unreadable; the purge recorded once, nothing personal in it.
    const events = await app.infra.eventStore.readStream(`job-${jobId}`);
    expect(events.filter((e) => e.type === 'job_purged').map((e) => e.data)).toEqual([{ job_id: jobId, org_id: org.id, reason: 'retention', at: expect.any(String) as string }]);
    const queued = events.find((e) => e.type === 'job_queued')!.data as Record<string, unknown>;
    expect(queued).toMatchObject({ job_id: jobId, input_filename: null, user_email: null, user_full_name: null });
    expect(events.find((e) => e.type === 'job_completed')!.data).toMatchObject({ result: {} });
    expect(JSON.stringify(await raw(`job-${jobId}`))).not.toContain(FILENAME);
    expect(JSON.stringify(events)).not.toContain(FILENAME);

    // The purge crossed to the bus (job-events), as the audit log will read it.
    await eventually(async () => {
      const db = new Database(join(app.dir, 'baret.db'), { readonly: true });
      try {
        const messages = db.prepare<[string], { value: Buffer }>("SELECT value FROM bus_log WHERE topic = 'job-events' AND key = ?").all(`job-${jobId}`);
        const types = messages.map((m) => decodeEnvelope(new Uint8Array(m.value)).type);
        return types.includes('job_purged') ? true : undefined;
      } finally {
        db.close();
      }
    }, 10_000);

    // The audit log keeps the deletion, once, with no actor (the retention did it).
    const audited = await eventually(async () => {
      const res = await app.request({ method: 'GET', url: `/admin/audit?action=job.deleted&object=${jobId}`, token: admin.token });
      const list = (res.json() as { entries: Array<{ actor_id: string | null; org_id: string | null; details: Record<string, unknown> }> }).entries;
      return list.length > 0 ? list : undefined;
    }, 15_000);
    expect(audited).toEqual([expect.objectContaining({ actor_id: null, org_id: org.id, details: { by: 'retention' } })]);

    // The job under the global 365 days stays whole.
    const kept = await waitForJob(app, loner.token, keptId);
    expect(kept).toMatchObject({ status: 'done', input_filename: 'kept.mp4' });
    expect((await app.infra.objects.list(`jobs/${keptId}/`)).length).toBeGreaterThan(0);
  }, 300_000);
});
