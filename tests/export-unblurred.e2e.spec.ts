/**
 * `GET /me/export` and the unblurred copies (issue 37): an organisation whose managers may see
 * unblurred evidence (`managers_see_unblurred`), a member's job analysed for real. The member's
 * export holds the blurred evidence of their job but never the unblurred copy the evidence routes
 * refuse them (403); a manager's export of a job of the organisation holds it, as the routes let them see it.
 */
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';
import { submitVideo, waitForJob } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let clip: Buffer;

beforeAll(async () => {
  fx = await videoFixtures();
  clip = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
  app = await startTestApp({}, { realClock: true });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

const params = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 };

async function exportedFiles(token: string): Promise<string[]> {
  const res = await app.request({ method: 'GET', url: '/me/export', token });
  expect(res.statusCode).toBe(200);
  return Object.keys(unzipSync(new Uint8Array(res.rawPayload)));
}

describe('the data export and unblurred evidence', () => {
  it('gives a member the blurred evidence of their job but not the unblurred copy only managers may open', async () => {
    const manager = await app.signUp('export-manager@example.com');
    const member = await app.signUp('export-member@example.com');
    const org = (await app.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: 'Anadolu Hat' } })).json() as { id: string };
    const invite = (await app.request({ method: 'POST', url: `/orgs/${org.id}/invites`, token: manager.token, payload: { email: 'export-member@example.com', role: 'member' } })).json() as { token: string };
    expect((await app.request({ method: 'POST', url: `/invites/${invite.token}/accept`, token: member.token })).statusCode).toBe(200);
    expect((await app.request({ method: 'PATCH', url: `/orgs/${org.id}/settings`, token: manager.token, payload: { managers_see_unblurred: true } })).statusCode).toBe(200);
    await eventually(async () => ((await app.infra.documents.collection('analysis_org_privacy').get(org.id))?.managers_see_unblurred === true ? true : undefined), 30_000);

    const submitted = await submitVideo(app, member.token, clip, params, 'ekip.mp4');
    expect(submitted.statusCode, submitted.body).toBe(202);
    const { job_id } = submitted.json() as { job_id: string };
    expect((await waitForJob(app, member.token, job_id, undefined, 180_000)).status).toBe('done');
    const unblurred = await app.infra.objects.list(`jobs/${job_id}/unblurred/`);
    expect(unblurred.length).toBeGreaterThan(0);
    // The evidence routes: the member may not open the unblurred copy.
    expect((await app.request({ method: 'GET', url: `/jobs/${job_id}/evidence/0?unblurred=true`, token: member.token })).statusCode).toBe(403);

    const mine = await exportedFiles(member.token);
    expect(mine).toContain(`jobs/${job_id}/job.json`);
    expect(mine.filter((f) => f.startsWith(`jobs/${job_id}/`) && f.endsWith('.jpg')).length).toBeGreaterThan(0);
    expect(mine.filter((f) => f.startsWith(`jobs/${job_id}/unblurred/`))).toEqual([]);

    // A manager's own job of the organisation: the unblurred copy is theirs to see, and to export.
    const own = (await submitVideo(app, manager.token, clip, params, 'yonetici.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, manager.token, own.job_id, undefined, 180_000)).status).toBe('done');
    expect((await exportedFiles(manager.token)).filter((f) => f.startsWith(`jobs/${own.job_id}/unblurred/`)).length).toBeGreaterThan(0);
  }, 420_000);
});
