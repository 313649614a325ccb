/**
 * Organisations on the distributed run (issue 28): every service its own process over PostgreSQL,
 * Kafka, FerretDB and MinIO, behind the gateway. The same acceptance as on the embedded run
 * (tests/organisations.e2e.spec.ts): an organisation, an invitation accepted, a member's job with
 * its site and crew listed for the manager (scope=org) and hidden from another member and from
 * another organisation's manager (404); 20 concurrent analyses of members charge the
 * organisation's quota exactly; compliance and CSV answer through the gateway.
 */
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEngines } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { startOrgStack, type OrgStack, type SignedUp } from './helpers/orgStack.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('organisations, distributed', ok, engine));

describe.skipIf(!installed)('organisations on the distributed run', () => {
  let baret: OrgStack;
  let gateway: string;
  let video: Buffer;
  let admin: SignedUp;
  const call = <T,>(path: string, token: string, init?: RequestInit) => baret.call<T>(path, token, init);
  const post = <T,>(path: string, token: string, body?: unknown) => baret.send<T>('POST', path, token, body);
  const signUp = (email: string) => baret.signUp(email);

  async function analyze(token: string, payload: Record<string, unknown> = {}) {
    const body = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2, ...payload }) },
      { name: 'direk.mp4', type: 'video/mp4', data: video },
    );
    const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${token}` }, body: body.payload });
    return { status: res.status, body: (await res.json()) as { job_id: string } };
  }

  beforeAll(async () => {
    baret = await startOrgStack();
    ({ gateway, video, admin } = baret);
  }, 300_000);

  afterAll(async () => {
    await baret?.close();
  }, 120_000);

  it('creates, invites, accepts; a member’s job with its site and crew is the manager’s to see, nobody else’s; 20 concurrent analyses charge the organisation exactly', async () => {
    const manager = await signUp('manager@example.com');
    const alice = await signUp('alice@example.com');
    const bob = await signUp('bob@example.com');
    const org = await baret.createOrg(manager, 'Boğaziçi Elektrik');
    expect(org.status).toBe(201);
    expect(org.body.role).toBe('manager');
    const orgId = org.body.id;
    for (const member of [alice, bob]) {
      const { invite, accepted } = await baret.join(orgId, manager, member);
      expect(invite.status).toBe(201);
      expect(invite.body.url).toBe(`/invite/${invite.body.token}`);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body).toMatchObject({ id: orgId, role: 'member' });
    }
    const members = await call<Array<{ user_id: string }>>(`/orgs/${orgId}/members`, bob.token);
    expect(members.body.map((m) => m.user_id).sort()).toEqual([manager.id, alice.id, bob.id].sort());
    const site = await post<{ id: string }>(`/orgs/${orgId}/sites`, manager.token, { name: 'Kadıköy Trafo', city: 'İstanbul' });
    const crew = await post<{ id: string }>(`/orgs/${orgId}/crews`, manager.token, { name: 'Hat Bakım' });
    expect([site.status, crew.status]).toEqual([201, 201]);

    // The organisation's quota: 15 for life; 20 analyses of two members at once.
    const patched = await call(`/admin/orgs/${orgId}/quota`, admin.token, { method: 'PATCH', body: JSON.stringify({ plan_name: 'pro', lifetime_limit: 15 }) });
    expect(patched.status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => analyze(i % 2 ? alice.token : bob.token, i === 0 ? { site_id: site.body.id, crew_id: crew.body.id, work_order: 'İE-42' } : {})));
    const codes = answers.map((a) => a.status);
    expect(codes.filter((c) => c === 202)).toHaveLength(15);
    expect(codes.filter((c) => c === 403)).toHaveLength(5);
    const current = await call<{ quota: { lifetime_used: number; can_analyze: boolean } }>('/orgs/current', alice.token);
    expect(current.body.quota).toMatchObject({ lifetime_used: 15, can_analyze: false });
    const me = await call<{ quota: { lifetime_used: number } }>('/auth/me', bob.token);
    expect(me.body.quota.lifetime_used).toBe(15);

    // The job with site and crew (the first request, if it got a unit; else any of bob's).
    const withSite = answers[0]!.status === 202 ? answers[0]!.body.job_id : null;
    const all = await call<Array<{ job_id: string; site_id: string | null; crew_id: string | null; work_order: string | null; user_email?: string }>>('/jobs?scope=org&limit=100', manager.token);
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(15);
    const bobsJob = withSite ?? all.body.find((j) => j.user_email === bob.email)!.job_id;
    if (withSite) {
      expect(all.body.find((j) => j.job_id === withSite)).toMatchObject({ site_id: site.body.id, crew_id: crew.body.id, work_order: 'İE-42', user_email: bob.email });
      const bySite = await call<unknown[]>(`/jobs?scope=org&site_id=${site.body.id}`, manager.token);
      expect(bySite.body).toHaveLength(1);
    }
    expect((await call(`/jobs/${bobsJob}`, manager.token)).status).toBe(200);
    expect((await call(`/jobs/${bobsJob}`, alice.token)).status).toBe(404);
    expect((await call('/jobs?scope=org', alice.token)).status).toBe(403);
    const rival = await signUp('rival@example.com');
    expect((await post('/orgs', rival.token, { name: 'Rakip Enerji' })).status).toBe(201);
    expect((await call(`/jobs/${bobsJob}`, rival.token)).status).toBe(404);
    expect((await call(`/orgs/${orgId}/members`, rival.token)).status).toBe(404);
    expect((await call(`/orgs/${orgId}/compliance`, rival.token)).status).toBe(404);

    // Compliance and the CSV through the gateway (nothing finished yet counts; every job is a row).
    const compliance = await call<{ rows: unknown[] }>(`/orgs/${orgId}/compliance`, manager.token);
    expect(compliance.status).toBe(200);
    const csv = await fetch(`${gateway}/orgs/${orgId}/jobs.csv?lang=tr`, { headers: { authorization: `Bearer ${manager.token}` } });
    expect(csv.status).toBe(200);
    const bytes = Buffer.from(await csv.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(16);
    if (withSite) expect(lines.join('\n')).toContain('Kadıköy Trafo');
    // The job links name the address the client used (the gateway's), not a service's.
    expect(lines[1]!.split(';').at(-1)).toMatch(new RegExp(`^${gateway.replace(/[.]/g, '\\.')}/dashboard/jobs/`));

    // Removal keeps the jobs in the organisation; the removed member no longer reads them, their own included (issue 37).
    expect((await call(`/orgs/${orgId}/members/${bob.id}`, manager.token, { method: 'DELETE' })).status).toBe(204);
    expect((await call('/orgs/current', bob.token)).status).toBe(204);
    expect((await call<unknown[]>('/jobs?scope=org&limit=100', manager.token)).body).toHaveLength(15);
    await expect.poll(async () => (await call(`/jobs/${bobsJob}`, bob.token)).status, { timeout: 15_000 }).toBe(404);
    expect((await call(`/jobs/${bobsJob}`, manager.token)).status).toBe(200);
  }, 240_000);
});
