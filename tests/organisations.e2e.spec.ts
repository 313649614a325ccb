/**
 * Organisations through HTTP on the embedded run (issue 28): create, invite, accept, members,
 * removal; the organisation's quota charged exactly under concurrency; who sees which job; sites,
 * crews and the job list's filters. Jobs stay queued here (no analysis runs): what is tested is
 * what the API decides when a video arrives and who may see it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/jobs.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: Buffer;
let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  fx = await videoFixtures();
  video = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { background: false });
  admin = await app.signUp('admin@baret.test');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

interface Org {
  id: string;
  name: string;
  role: string;
  member_count: number;
  quota: { plan_name: string; lifetime_limit: number | null; lifetime_used: number; can_analyze: boolean };
}

let n = 0;
const person = (name: string) => app.signUp(`${name}${++n}@example.com`);
const post = (url: string, token: string, payload?: unknown) => app.request({ method: 'POST', url, token, payload: payload as Record<string, unknown> });
const get = (url: string, token: string) => app.request({ method: 'GET', url, token });

async function createOrg(token: string, name = 'Boğaziçi Elektrik'): Promise<Org> {
  const res = await post('/orgs', token, { name });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Org;
}

async function join(manager: string, orgId: string, member: { token: string }, email: string, role: 'manager' | 'member' = 'member') {
  const inv = await post(`/orgs/${orgId}/invites`, manager, { email, role });
  expect(inv.statusCode, inv.body).toBe(201);
  const { token } = inv.json() as { token: string };
  const acc = await post(`/invites/${token}/accept`, member.token);
  expect(acc.statusCode, acc.body).toBe(200);
  return acc.json() as Org;
}

async function analyze(token: string, payload: Record<string, unknown> = {}) {
  const body = await multipart(
    { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2, ...payload }) },
    { name: 'direk.mp4', type: 'video/mp4', data: video },
  );
  return app.request({ method: 'POST', url: '/analyze', token, ...body });
}

/** An organisation with a manager, two members, a site and a crew. */
async function team() {
  const manager = await person('manager');
  const alice = await person('alice');
  const bob = await person('bob');
  const org = await createOrg(manager.token);
  await join(manager.token, org.id, alice, `alice${n - 1}@example.com`);
  await join(manager.token, org.id, bob, `bob${n}@example.com`);
  const site = (await post(`/orgs/${org.id}/sites`, manager.token, { name: 'Kadıköy Trafo', city: 'İstanbul' })).json() as { id: string };
  const crew = (await post(`/orgs/${org.id}/crews`, manager.token, { name: 'Hat Bakım' })).json() as { id: string };
  return { manager, alice, bob, org, site, crew };
}

describe('organisations: create, invite, accept, members, removal', () => {
  it('creates an organisation whose creator is its manager, invites by email with a role and lists the members', async () => {
    const manager = await person('manager');
    expect((await get('/orgs/current', manager.token)).statusCode).toBe(204);
    const org = await createOrg(manager.token, 'Çamlıca Dağıtım');
    expect(org).toMatchObject({ name: 'Çamlıca Dağıtım', role: 'manager', member_count: 1, quota: { plan_name: 'free', lifetime_limit: 2, lifetime_used: 0 } });

    const member = await person('crew');
    const inv = await post(`/orgs/${org.id}/invites`, manager.token, { email: `CREW${n}@example.com`, role: 'member' });
    expect(inv.statusCode).toBe(201);
    const invite = inv.json() as { token: string; url: string; role: string; expires_at: string };
    expect(invite.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(invite.url).toBe(`/invite/${invite.token}`);
    // The manager sees it pending (without its token); the invitee sees what it is for.
    const pending = (await get(`/orgs/${org.id}/invites`, manager.token)).json() as Array<Record<string, unknown>>;
    expect(pending).toEqual([expect.objectContaining({ email: `CREW${n}@example.com`, role: 'member' })]);
    expect(JSON.stringify(pending)).not.toContain(invite.token);
    expect((await get(`/invites/${invite.token}`, member.token)).json()).toMatchObject({ org_name: 'Çamlıca Dağıtım', role: 'member', accepted: false });

    const joined = await post(`/invites/${invite.token}/accept`, member.token);
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toMatchObject({ id: org.id, role: 'member', member_count: 2 });
    // Accepting again is the same answer; the invitation is no longer pending.
    expect((await post(`/invites/${invite.token}/accept`, member.token)).statusCode).toBe(200);
    expect((await get(`/orgs/${org.id}/invites`, manager.token)).json()).toEqual([]);
    expect((await get(`/orgs/${org.id}/invites`, member.token)).statusCode).toBe(403);

    const members = (await get(`/orgs/${org.id}/members`, member.token)).json() as Array<{ user_id: string; role: string }>;
    expect(members.map((m) => [m.user_id, m.role])).toEqual([
      [manager.id, 'manager'],
      [member.id, 'member'],
    ]);
    expect((await get('/orgs/current', member.token)).json()).toMatchObject({ id: org.id, role: 'member' });
  });

  it('lets only the invited address accept, once, and a user belong to one organisation at most', async () => {
    const a = await person('a');
    const b = await person('b');
    const orgA = await createOrg(a.token, 'A');
    const orgB = await createOrg(b.token, 'B');
    const stranger = await person('stranger');
    const other = await post(`/orgs/${orgA.id}/invites`, a.token, { email: 'someone-else@example.com', role: 'member' });
    const refused = await post(`/invites/${(other.json() as { token: string }).token}/accept`, stranger.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden', detail: 'This invitation was sent to another email address.' });
    expect((await post('/invites/not-a-real-token-not-a-real-token/accept', stranger.token)).statusCode).toBe(404);

    // Invited by both at once: exactly one acceptance wins, the other is a 409.
    const email = `stranger${n}@example.com`;
    const tokens = await Promise.all(
      [orgA, orgB].map(async (o, i) => ((await post(`/orgs/${o.id}/invites`, [a, b][i]!.token, { email, role: 'member' })).json() as { token: string }).token),
    );
    const answers = await Promise.all(tokens.map((t) => post(`/invites/${t}/accept`, stranger.token)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.statusCode === 409)!.json()).toMatchObject({ detail: 'You already belong to an organisation.' });
    expect((await post('/orgs', stranger.token, { name: 'C' })).statusCode).toBe(409);
    expect((await post('/orgs', a.token, { name: 'A2' })).statusCode).toBe(409);
    const orgs = [(await get(`/orgs/${orgA.id}/members`, a.token)).json(), (await get(`/orgs/${orgB.id}/members`, b.token)).json()] as Array<Array<{ user_id: string }>>;
    expect(orgs.flat().filter((m) => m.user_id === stranger.id)).toHaveLength(1);
  });

  it('lets only managers invite, and keeps another organisation out (404)', async () => {
    const { manager, alice, org } = await team();
    expect((await post(`/orgs/${org.id}/invites`, alice.token, { email: 'x@example.com', role: 'member' })).statusCode).toBe(403);
    const outsider = await person('outsider');
    const outsiderOrg = await createOrg(outsider.token, 'Other');
    for (const url of [`/orgs/${org.id}/members`, `/orgs/${org.id}/sites`, `/orgs/${org.id}/compliance`, `/orgs/${org.id}/jobs.csv`, `/orgs/${org.id}/invites`]) {
      expect((await get(url, outsider.token)).statusCode, url).toBe(404);
    }
    expect((await post(`/orgs/${org.id}/invites`, outsider.token, { email: 'x@example.com', role: 'manager' })).statusCode).toBe(404);
    expect((await app.request({ method: 'DELETE', url: `/orgs/${org.id}/members/${alice.id}`, token: outsider.token })).statusCode).toBe(404);
    expect((await get(`/orgs/${outsiderOrg.id}/members`, manager.token)).statusCode).toBe(404);
  });
});

describe('the organisation pays for its members’ analyses', () => {
  it('charges 20 concurrent analyses of two members to the organisation exactly: 15 allowed, 5 refused', async () => {
    const { alice, bob, org } = await team();
    const patched = await app.request({ method: 'PATCH', url: `/admin/orgs/${org.id}/quota`, token: admin.token, payload: { plan_name: 'pro', daily_limit: null, monthly_limit: null, lifetime_limit: 15 } });
    expect(patched.statusCode, patched.body).toBe(200);
    const listed = (await get('/admin/orgs/quotas', admin.token)).json() as Array<{ org_id: string; member_count: number }>;
    expect(listed.find((o) => o.org_id === org.id)).toMatchObject({ member_count: 3 });

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => analyze(i % 2 ? alice.token : bob.token)));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 202)).toHaveLength(15);
    expect(codes.filter((c) => c === 403)).toHaveLength(5);
    const current = (await get('/orgs/current', alice.token)).json() as Org;
    expect(current.quota).toMatchObject({ plan_name: 'pro', lifetime_limit: 15, lifetime_used: 15, can_analyze: false });
    // Members see the organisation's quota as theirs; their own accounts were not charged.
    const me = (await get('/auth/me', bob.token)).json() as { quota: Org['quota'] };
    expect(me.quota).toMatchObject({ plan_name: 'pro', lifetime_used: 15, can_analyze: false });
    const users = (await get('/admin/users/quotas', admin.token)).json() as Array<{ user_id: string; quota: Org['quota'] }>;
    expect(users.find((u) => u.user_id === alice.id)!.quota.lifetime_used).toBe(0);
  }, 60_000);
});

describe('who sees which job', () => {
  it('lists a member’s job with its site, crew and work order for the manager (scope=org), hides it from another member and another organisation', async () => {
    const { manager, alice, bob, org, site, crew } = await team();
    await app.request({ method: 'PATCH', url: `/admin/orgs/${org.id}/quota`, token: admin.token, payload: { lifetime_limit: null } });
    const res = await analyze(alice.token, { site_id: site.id, crew_id: crew.id, work_order: '  İE-2026/0042  ' });
    expect(res.statusCode, res.body).toBe(202);
    const { job_id } = res.json() as { job_id: string };
    const mine = await analyze(bob.token);
    const bobsJob = (mine.json() as { job_id: string }).job_id;

    const all = (await get('/jobs?scope=org', manager.token)).json() as Array<Record<string, unknown>>;
    expect(all.map((j) => j.job_id).sort()).toEqual([job_id, bobsJob].sort());
    expect(all.find((j) => j.job_id === job_id)).toMatchObject({ site_id: site.id, crew_id: crew.id, work_order: 'İE-2026/0042', user_email: expect.stringMatching(/^alice/) });
    expect((await get(`/jobs/${job_id}`, manager.token)).json()).toMatchObject({ job_id, site_id: site.id, user_email: expect.stringMatching(/^alice/) });
    expect((await get('/jobs', manager.token)).json()).toEqual([]); // the manager's own jobs: none

    // Another member: not their job (404), and no scope=org (403).
    expect((await get(`/jobs/${job_id}`, bob.token)).statusCode).toBe(404);
    expect((await get('/jobs?scope=org', bob.token)).statusCode).toBe(403);
    expect(((await get('/jobs', bob.token)).json() as Array<{ job_id: string }>).map((j) => j.job_id)).toEqual([bobsJob]);
    // Another organisation's manager: 404 for the job, its evidence and its report.
    const other = await person('othermanager');
    await createOrg(other.token, 'Rakip Enerji');
    for (const url of [`/jobs/${job_id}`, `/jobs/${job_id}/violations/0`, `/jobs/${job_id}/evidence/0`]) expect((await get(url, other.token)).statusCode, url).toBe(404);
    expect((await get('/jobs?scope=org', other.token)).json()).toEqual([]);

    // Filters: by site, crew and day.
    expect(((await get(`/jobs?scope=org&site_id=${site.id}`, manager.token)).json() as unknown[]).length).toBe(1);
    expect(((await get(`/jobs?scope=org&crew_id=${crew.id}`, manager.token)).json() as unknown[]).length).toBe(1);
    const today = app.clock.now().toISOString().slice(0, 10);
    expect(((await get(`/jobs?scope=org&from=${today}&to=${today}`, manager.token)).json() as unknown[]).length).toBe(2);
    expect(((await get(`/jobs?scope=org&to=2020-01-01`, manager.token)).json() as unknown[]).length).toBe(0);
    expect(((await get(`/jobs?scope=org&has_violations=true`, manager.token)).json() as unknown[]).length).toBe(0); // none finished yet
    expect((await get('/jobs?from=yesterday', manager.token)).statusCode).toBe(400);

    // Removal keeps the jobs in the organisation; the removed member no longer reads them, their own included (issue 37).
    expect((await app.request({ method: 'DELETE', url: `/orgs/${org.id}/members/${alice.id}`, token: manager.token })).statusCode).toBe(204);
    expect((await get('/orgs/current', alice.token)).statusCode).toBe(204);
    expect(((await get('/jobs?scope=org', manager.token)).json() as unknown[]).length).toBe(2);
    expect((await get(`/jobs/${job_id}`, alice.token)).statusCode).toBe(404);
    expect((await get('/jobs', alice.token)).json()).toEqual([]);
    // Now out of the organisation: the site is not hers to name any more.
    expect((await analyze(alice.token, { site_id: site.id })).statusCode).toBe(400);
  }, 60_000);

  it('lets a member leave but keeps the last manager while others remain', async () => {
    const { manager, bob, org } = await team();
    expect((await app.request({ method: 'DELETE', url: `/orgs/${org.id}/members/${manager.id}`, token: manager.token })).statusCode).toBe(409);
    expect((await app.request({ method: 'DELETE', url: `/orgs/${org.id}/members/${manager.id}`, token: bob.token })).statusCode).toBe(403);
    expect((await app.request({ method: 'DELETE', url: `/orgs/${org.id}/members/${bob.id}`, token: bob.token })).statusCode).toBe(204);
    expect((await get(`/orgs/${org.id}/members`, bob.token)).statusCode).toBe(404);
  });
});

describe('sites and crews', () => {
  it('are created and archived by managers, listed for members, and checked when a video names them', async () => {
    const { manager, alice, org, site, crew } = await team();
    expect((await post(`/orgs/${org.id}/sites`, alice.token, { name: 'Nope' })).statusCode).toBe(403);
    expect((await post(`/orgs/${org.id}/sites`, manager.token, { name: '   ' })).statusCode).toBe(400);
    expect((await get(`/orgs/${org.id}/sites`, alice.token)).json()).toEqual([expect.objectContaining({ id: site.id, name: 'Kadıköy Trafo', city: 'İstanbul', archived: false })]);
    expect((await get(`/orgs/${org.id}/crews`, alice.token)).json()).toEqual([expect.objectContaining({ id: crew.id, name: 'Hat Bakım', city: null })]);
    expect((await analyze(alice.token, { work_order: 'x'.repeat(65) })).statusCode).toBe(400);

    const archived = await post(`/orgs/${org.id}/sites/${site.id}/archive`, manager.token);
    expect(archived.json()).toMatchObject({ id: site.id, archived: true });
    expect((await get(`/orgs/${org.id}/sites`, alice.token)).json()).toEqual([]);
    expect(((await get(`/orgs/${org.id}/sites?archived=true`, alice.token)).json() as unknown[]).length).toBe(1);
    const refused = await analyze(alice.token, { site_id: site.id });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ detail: 'This site does not exist in your organisation.' });
    // Another organisation's site is not found, and cannot be named.
    const other = await person('other');
    const otherOrg = await createOrg(other.token, 'Diğer');
    expect((await post(`/orgs/${otherOrg.id}/crews/${crew.id}/archive`, other.token)).statusCode).toBe(404);
    expect((await analyze(other.token, { crew_id: crew.id })).statusCode).toBe(400);
  }, 60_000);
});
