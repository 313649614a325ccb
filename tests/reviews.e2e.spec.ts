/**
 * Reviews of findings (issue 53) through HTTP on the embedded run: what a safety manager and an
 * auditor would notice. A dismissed false "no hard hat" leaves the compliance figures, the job list
 * and the CSV; a violation added by a reviewer enters them; a crew member cannot clear their own
 * violation; a changed review keeps its history (timeline, audit log); the same review sent twice
 * at once records one event; the read models rebuilt from the events give the same figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS, rebuildCompliance } from '@baret/job';
import { orgQuotaAccount } from '@baret/platform';
import { PRESETS } from '@baret/quota';
import { JOBS, jobsProjection } from '../services/job/src/readModels/jobs.js';
import { HAT, RESULT, VEST } from '../services/job/test/fixtures/reviewResult.js';
import { eventually, recordFinishedJob, startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver, type TestReceiver } from './helpers/notify.js';


let app: TestApp;
let hooks: TestReceiver;
let admin: { token: string; id: string };
let team: Awaited<ReturnType<typeof makeTeam>>;

let n = 0;
const person = (name: string, fullName?: string) => {
  const email = `${name}${++n}@example.com`;
  return app.signUp(email, undefined, fullName).then((u) => ({ ...u, email }));
};
const req = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown, lang = 'en') =>
  app.request({ method, url, token, payload: payload as Record<string, unknown>, headers: { 'accept-language': lang } });

async function makeTeam() {
  const manager = await person('manager', 'Mehmet Müdür');
  const manager2 = await person('manager', 'Zeynep Şef');
  const alice = await person('alice', 'Alice Ekip');
  const res = await req('POST', '/orgs', manager.token, { name: 'Boğaziçi Elektrik' });
  expect(res.statusCode, res.body).toBe(201);
  const org = res.json() as { id: string };
  for (const [who, role] of [
    [alice, 'member'],
    [manager2, 'manager'],
  ] as const) {
    const inv = (await req('POST', `/orgs/${org.id}/invites`, manager.token, { email: who.email, role })).json() as { token: string };
    expect((await req('POST', `/invites/${inv.token}/accept`, who.token)).statusCode).toBe(200);
  }
  const { plan_name, daily_limit, monthly_limit, lifetime_limit } = PRESETS.enterprise;
  await app.quota.changeLimits(orgQuotaAccount(org.id), { plan_name, daily_limit, monthly_limit, lifetime_limit }, 'test');
  const other = await person('othermanager');
  expect((await req('POST', '/orgs', other.token, { name: 'Başka Elektrik' })).statusCode).toBe(201);
  return { manager, manager2, alice, other, org };
}


/** A done job recorded by `userId` with the unit test's result: worker 1 without a hard hat (one violation), worker 2 wearing both, worker 3 cannot tell. */
const finishedJob = (userId: string) => recordFinishedJob(app, userId, RESULT);

/** The team's review queue (`reviewed=false`) or the reviewed jobs, as the manager lists them. */
const queue = async (reviewed: boolean, extra = ''): Promise<string[]> =>
  ((await req('GET', `/jobs?scope=org&limit=100&reviewed=${reviewed}${extra}`, team.manager.token)).json() as Array<{ job_id: string }>).map((j) => j.job_id);

const range = () => `from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date(Date.now() + 86_400_000).toISOString()}`;
async function figures() {
  const res = await req('GET', `/orgs/${team.org.id}/compliance?${range()}&by=site&interval=day`, team.manager.token);
  expect(res.statusCode, res.body).toBe(200);
  const rows = (res.json() as { rows: Array<{ jobs: number; jobs_with_violations: number; workers_seen: number; violations: Record<string, number> }> }).rows;
  return rows.reduce(
    (s, r) => {
      s.jobs += r.jobs;
      s.with += r.jobs_with_violations;
      s.workers += r.workers_seen;
      for (const [g, k] of Object.entries(r.violations)) s.violations[g] = (s.violations[g] ?? 0) + k;
      return s;
    },
    { jobs: 0, with: 0, workers: 0, violations: {} as Record<string, number> },
  );
}
async function csv() {
  const res = await req('GET', `/orgs/${team.org.id}/jobs.csv?${range()}`, team.manager.token);
  expect(res.statusCode, res.body).toBe(200);
  const [header, ...rows] = res.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
  return { header: header!.split(','), rows: rows.map((r) => r.split(',')) };
}
const review = (jobId: string, token: string, body: Record<string, unknown>, lang = 'en') => req('POST', `/jobs/${jobId}/reviews`, token, body, lang);
const detail = async (jobId: string, token = team.manager.token) => {
  const res = await req('GET', `/jobs/${jobId}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    has_violations: boolean;
    violation_count: number;
    logs: Array<{ event: string; data?: Record<string, unknown> }>;
    result: { violation_count?: number; missing_groups: string[][]; violations: Array<Record<string, unknown>>; workers: Array<{ items: Record<string, Record<string, unknown>> }> };
  };
};

beforeAll(async () => {
  hooks = await startReceiver();
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test', NOTIFY_ALLOW_PRIVATE_HOSTS: 'true' }, { realClock: true });
  admin = await app.signUp('admin@baret.test');
  team = await makeTeam();
}, 90_000);
afterAll(async () => {
  await app?.close();
  await hooks?.close();
});

describe('reviews of findings', () => {
  it('a dismissed false "no hard hat" leaves the figures, the job list and the CSV; a violation added by a reviewer enters them', async () => {
    const jobId = await finishedJob(team.alice.id);
    expect(await figures()).toEqual({ jobs: 1, with: 1, workers: 3, violations: { [HAT]: 1 } });
    expect((await csv()).header).toContain('Violations: Hard hat');

    const res = await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn', note: 'Baret takılı, gölge yanılttı' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ job_id: jobId, violation_count: 0, reviews: [{ worker: 1, group: HAT, model_verdict: 'missing', verdict: 'worn', by: team.manager.id, by_name: 'Mehmet Müdür' }] });

    const dismissed = await detail(jobId);
    expect(dismissed.has_violations).toBe(false);
    expect(dismissed.violation_count).toBe(0);
    // The JSON keeps both: the model's violation, marked dismissed, with who reviewed it.
    expect(dismissed.result.violations).toHaveLength(1);
    expect(dismissed.result.violations[0]).toMatchObject({ worker: 1, dismissed: true, reviewed_verdict: 'worn', review: { verdict: 'worn', by_name: 'Mehmet Müdür', note: 'Baret takılı, gölge yanılttı' } });
    expect(dismissed.result.workers[0]!.items[HAT]).toMatchObject({ verdict: 'missing', reviewed_verdict: 'worn' });
    expect(dismissed.result.missing_groups).toEqual([]);
    expect(await figures()).toEqual({ jobs: 1, with: 0, workers: 3, violations: {} });
    expect((await csv()).header.some((h) => h.startsWith('Violations:'))).toBe(false);
    const list = (await req('GET', '/jobs?scope=org', team.manager.token)).json() as Array<{ job_id: string; violation_count: number; has_violations: boolean }>;
    expect(list.find((j) => j.job_id === jobId)).toMatchObject({ violation_count: 0, has_violations: false });

    // Worker 2 took the vest off: the model said worn; the reviewer adds the violation.
    expect((await review(jobId, team.manager.token, { worker: 2, group: VEST, verdict: 'missing' })).json()).toMatchObject({ violation_count: 1 });
    const added = await detail(jobId);
    expect(added.result.violations[1]).toMatchObject({ worker: 2, group: VEST.split(','), added_by_review: true, dismissed: false, image_url: null, group_name: 'Hi-vis vest' });
    expect(await figures()).toEqual({ jobs: 1, with: 1, workers: 3, violations: { [VEST]: 1 } });
    const sheet = await csv();
    const column = sheet.header.indexOf('Violations: Hi-vis vest');
    expect(column).toBeGreaterThan(0);
    expect(sheet.rows.find((r) => r.at(-1)!.endsWith(jobId))![column]).toBe('1');
  });

  it('refuses a crew member, whose own violation it is, in their language; and the others who may not review', async () => {
    const jobId = await finishedJob(team.alice.id);
    const tr = await review(jobId, team.alice.token, { worker: 1, group: HAT, verdict: 'worn' }, 'tr');
    expect(tr.statusCode).toBe(403);
    expect((tr.json() as { detail: string }).detail).toBe('İşin bulgularını yalnızca işin kuruluşunun yöneticileri inceleyebilir.');
    const en = await review(jobId, team.alice.token, { worker: 1, group: HAT, verdict: 'worn' });
    expect((en.json() as { detail: string }).detail).toBe('Only the managers of the job’s organisation can review its findings.');
    // Another organisation's manager does not see the job; the admin sees it but does not sign.
    expect((await review(jobId, team.other.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(404);
    expect((await review(jobId, admin.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(403);
    // A manager who recorded the job cannot clear it either: another manager reviews it.
    const own = await finishedJob(team.manager.id);
    const mine = await review(own, team.manager.token, { worker: 1, group: HAT, verdict: 'worn' }, 'tr');
    expect(mine.statusCode).toBe(403);
    expect((mine.json() as { detail: string }).detail).toMatch(/Kendi kaydettiğiniz/);
    expect((await review(own, team.manager2.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(200);
    // A finding the result does not have, a bad verdict, a note too long.
    expect((await review(jobId, team.manager.token, { worker: 7, group: HAT, verdict: 'worn' })).statusCode).toBe(404);
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'maybe' })).statusCode).toBe(400);
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn', note: 'x'.repeat(501) })).statusCode).toBe(400);
    // Nothing was recorded for the refused attempts.
    expect((await detail(jobId)).logs.filter((l) => l.event === 'finding_reviewed')).toEqual([]);
    // The job's page says who may review (may_review), so the web shows controls only to them.
    const mayReview = async (id: string, token: string) => ((await req('GET', `/jobs/${id}`, token)).json() as { may_review?: boolean }).may_review;
    expect(await mayReview(jobId, team.manager.token)).toBe(true);
    expect(await mayReview(jobId, team.alice.token)).toBe(false);
    expect(await mayReview(jobId, admin.token)).toBe(false);
    expect(await mayReview(own, team.manager.token)).toBe(false);
    expect(await mayReview(own, team.manager2.token)).toBe(true);
  });

  it('keeps a job in the team’s review queue (reviewed=false) until no violation or cannot-tell finding is left unreviewed', async () => {
    const jobId = await finishedJob(team.alice.id);
    expect(await queue(false)).toContain(jobId);
    expect(await queue(true)).not.toContain(jobId);
    // The manager's notice of the finished job (with a violation) opens its review; the crew member's, the page.
    const notices = async (token: string) => ((await req('GET', '/notifications', token)).json() as { items: Array<{ job_id: string | null; url: string }> }).items.filter((i) => i.job_id === jobId);
    expect(await eventually(async () => (await notices(team.manager.token)).map((i) => i.url).at(0))).toBe(`/dashboard/jobs/${jobId}#review`);
    expect(await eventually(async () => (await notices(team.alice.token)).map((i) => i.url).at(0))).toBe(`/dashboard/jobs/${jobId}`);
    // Worker 1's violation reviewed; worker 3 (cannot tell) still waits; worker 2 (worn) never did.
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'confirmed' })).statusCode).toBe(200);
    expect(await queue(false)).toContain(jobId);
    for (const group of [HAT, VEST]) expect((await review(jobId, team.manager.token, { worker: 3, group, verdict: 'not_a_worker' })).statusCode).toBe(200);
    expect(await queue(false)).not.toContain(jobId);
    expect(await queue(true)).toContain(jobId);
    // A crew member has no team queue.
    expect((await req('GET', '/jobs?scope=org&reviewed=false', team.alice.token)).statusCode).toBe(403);
  });

  it('puts a job finished before reviews existed in the queue by its result (its document has no count of findings to review)', async () => {
    const jobId = await finishedJob(team.alice.id);
    const jobs = app.infra.documents.collection<Record<string, unknown> & { id: string; revision: number }>(JOBS);
    const doc = (await jobs.get(jobId))!;
    // The document as the projection wrote it before issue 53, of a job with a violation and of one with none.
    const { to_review: _counted, ...before } = doc;
    await jobs.put(jobId, before);
    const clean = `${jobId.slice(0, -4)}c1ea`;
    await jobs.put(clean, { ...before, id: clean, has_violations: false, violation_count: 0, result: { ...(before.result as object), violations: [], workers: [] } });
    expect(await queue(false)).toContain(jobId);
    expect(await queue(false)).not.toContain(clean);
    expect(await queue(true)).toContain(clean);
    expect(await queue(true)).not.toContain(jobId);
    // Filtered as the others are: not a job of another status.
    expect(await queue(false, '&status=error')).not.toContain(jobId);
    // Its first review writes the count (the projection folds the stream again).
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'confirmed' })).statusCode).toBe(200);
    expect(await eventually(async () => (await jobs.get(jobId))?.to_review as number | undefined)).toBeGreaterThan(0);
    await jobs.delete(clean);
  });

  it('lets the owner of a personal job review it', async () => {
    const solo = await person('solo', 'Solo Kullanıcı');
    const { plan_name, daily_limit, monthly_limit, lifetime_limit } = PRESETS.enterprise;
    await app.quota.changeLimits(solo.id, { plan_name, daily_limit, monthly_limit, lifetime_limit }, 'test');
    const jobId = await finishedJob(solo.id);
    expect(((await req('GET', `/jobs/${jobId}`, solo.token)).json() as { may_review?: boolean }).may_review).toBe(true);
    const res = await review(jobId, solo.token, { worker: 1, group: HAT, verdict: 'confirmed' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(404);
  });

  it('keeps the history of a changed review: both events in the timeline and the audit log, the latest standing', async () => {
    const jobId = await finishedJob(team.alice.id);
    expect((await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(200);
    expect((await review(jobId, team.manager2.token, { worker: 1, group: HAT, verdict: 'confirmed', note: 'Videoda baret yok' })).statusCode).toBe(200);
    const job = await detail(jobId, team.alice.token);
    expect(job.logs.filter((l) => l.event === 'finding_reviewed').map((l) => [l.data?.verdict, l.data?.reviewer_name])).toEqual([
      ['worn', 'Mehmet Müdür'],
      ['confirmed', 'Zeynep Şef'],
    ]);
    expect(job.violation_count).toBe(1);
    const reviews = (await req('GET', `/jobs/${jobId}/reviews`, team.alice.token)).json() as { reviews: unknown[]; history: Array<{ verdict: string }> };
    expect(reviews.reviews).toHaveLength(1);
    expect(reviews.history.map((h) => h.verdict)).toEqual(['worn', 'confirmed']);
    const entries = await eventually(async () => {
      const res = await req('GET', `/orgs/${team.org.id}/audit?action=job.finding_reviewed&object=${jobId}`, team.manager.token);
      expect(res.statusCode, res.body).toBe(200);
      const list = (res.json() as { entries: Array<{ actor_id: string; details: Record<string, string> }> }).entries;
      return list.length >= 2 ? list : undefined;
    }, 15_000);
    expect(entries.map((e) => [e.actor_id, e.details.verdict]).sort()).toEqual(
      [
        [team.manager.id, 'worn'],
        [team.manager2.id, 'confirmed'],
      ].sort(),
    );
  });

  it('records the same review sent twice at once as one event', async () => {
    const jobId = await finishedJob(team.alice.id);
    const body = { worker: 1, group: HAT, verdict: 'not_a_worker' };
    const answers = await Promise.all([review(jobId, team.manager.token, body), review(jobId, team.manager.token, body)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const events = await app.infra.eventStore.readStream(`job-${jobId}`);
    expect(events.filter((e) => e.type === 'finding_reviewed')).toHaveLength(1);
  });

  it('gives the same figures after the read models are rebuilt from the events', async () => {
    const jobId = await finishedJob(team.alice.id);
    await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn' });
    await review(jobId, team.manager.token, { worker: 3, group: VEST, verdict: 'missing' });
    const before = { figures: await figures(), csv: await csv(), jobs: (await req('GET', '/jobs?scope=org&limit=100', team.manager.token)).json(), job: await detail(jobId) };

    // The compliance read model from the events; the jobs read model folded again from each job's stream.
    for (const c of [COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS]) await app.infra.documents.collection(c).deleteMany({});
    expect((await figures()).jobs).toBe(0);
    await rebuildCompliance(app.infra.eventStore, app.infra.documents, 'test', new Date());
    const jobs = app.infra.documents.collection<{ id: string }>(JOBS);
    const ids = (await jobs.find({})).map((j) => j.id);
    await jobs.deleteMany({});
    for (const id of ids) for (const e of await app.infra.eventStore.readStream(`job-${id}`)) await jobsProjection.apply(e, app.infra.documents, app.infra.eventStore);

    expect(await figures()).toEqual(before.figures);
    expect(await csv()).toEqual(before.csv);
    expect((await req('GET', '/jobs?scope=org&limit=100', team.manager.token)).json()).toEqual(before.jobs);
    expect(await detail(jobId)).toEqual(before.job);
  });

  it('tells a webhook subscriber when a review changes the job’s violation count (job.reviewed), not when it leaves it', async () => {
    const hook = await req('POST', '/webhooks', team.manager2.token, { url: `${hooks.url}/baret`, events: ['job.reviewed'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const jobId = await finishedJob(team.alice.id);
    await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'confirmed' });
    await review(jobId, team.manager.token, { worker: 1, group: HAT, verdict: 'worn' });
    const call = await eventually(async () => hooks.requests.find((r) => r.body.toString().includes(jobId)), 15_000);
    const body = JSON.parse(call.body.toString()) as { event: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ event: 'job.reviewed', data: { job_id: jobId, status: 'done', violation_count: 0, previous_violation_count: 1, org_id: team.org.id, reviewed_by: team.manager.id } });
    // The confirmation left the count as it was: one call only.
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.requests.filter((r) => r.body.toString().includes(jobId))).toHaveLength(1);
  });

  it('keeps the reviews of an erased reviewer, by id, without their name', async () => {
    const leaving = await person('leaving', 'Giden Müdür');
    const inv = (await req('POST', `/orgs/${team.org.id}/invites`, team.manager.token, { email: leaving.email, role: 'manager' })).json() as { token: string };
    expect((await req('POST', `/invites/${inv.token}/accept`, leaving.token)).statusCode).toBe(200);
    const jobId = await finishedJob(team.alice.id);
    expect((await review(jobId, leaving.token, { worker: 1, group: HAT, verdict: 'worn' })).statusCode).toBe(200);
    expect((await detail(jobId)).result.violations[0]).toMatchObject({ review: { by: leaving.id, by_name: 'Giden Müdür' } });
    expect((await app.request({ method: 'DELETE', url: `/admin/users/${leaving.id}`, token: admin.token })).statusCode).toBeLessThan(300);
    const after = await eventually(async () => {
      const job = await detail(jobId);
      return (job.result.violations[0]!.review as { by_name: string | null }).by_name === null ? job : undefined;
    }, 15_000);
    expect(after.result.violations[0]).toMatchObject({ dismissed: true, review: { by: leaving.id, by_name: null } });
    expect(after.logs.find((l) => l.event === 'finding_reviewed')!.data).toMatchObject({ reviewer_id: leaving.id, reviewer_name: null });
    expect(JSON.stringify(after)).not.toContain('Giden Müdür');
    // A rebuild from the events says the same: the name was sealed with the reviewer's key, now shredded.
    const jobs = app.infra.documents.collection(JOBS);
    await jobs.delete(jobId);
    for (const e of await app.infra.eventStore.readStream(`job-${jobId}`)) await jobsProjection.apply(e, app.infra.documents, app.infra.eventStore);
    expect(JSON.stringify(await detail(jobId))).not.toContain('Giden Müdür');
  });
});
