/**
 * The audit log on the distributed run (issue 30): every service its own process over PostgreSQL,
 * Kafka, FerretDB and MinIO, behind the gateway. Entries recorded by the identity, job and quota
 * services cross Kafka to the identity service, which keeps them: each action once, a member
 * cannot read the log, another organisation's manager gets 404, the CSV export.
 */
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEngines } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { startOrgStack, type OrgStack, type SignedUp } from './helpers/orgStack.js';
import { api } from './helpers/process.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('audit log, distributed', ok, engine));

interface Entry {
  id: string;
  action: string;
  actor_id: string | null;
  actor_email: string | null;
  org_id: string | null;
  object_id: string | null;
  details: Record<string, string>;
}

describe.skipIf(!installed)('audit log on the distributed run', () => {
  let baret: OrgStack;
  let gateway: string;
  let video: Buffer;
  let admin: SignedUp;
  const call = <T,>(path: string, token: string, init?: RequestInit) => baret.call<T>(path, token, init);
  const send = <T,>(method: string, path: string, token: string, body?: unknown) => baret.send<T>(method, path, token, body);
  const signUp = (email: string) => baret.signUp(email);

  async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    baret = await startOrgStack();
    ({ gateway, video, admin } = baret);
  }, 300_000);

  afterAll(async () => {
    await baret?.close();
  }, 120_000);

  it('records each action once across the services, shows managers their organisation’s log, refuses members and other organisations', async () => {
    const manager = await signUp('manager@example.com');
    const alice = await signUp('alice@example.com');
    const other = await signUp('other@example.com');
    const failed = await api(gateway, '/auth/login', { method: 'POST', body: JSON.stringify({ email: alice.email, password: 'not her password' }) });
    expect(failed.status).toBe(401);

    const org = (await baret.createOrg(manager, 'Boğaziçi Elektrik')).body;
    expect((await baret.createOrg(other, 'Başka Elektrik')).status).toBe(201);
    expect((await baret.join(org.id, manager, alice)).accepted.status).toBe(200);

    // Alice records a job; it is analysed by the analysis worker and finished by the job service.
    const form = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }) },
      { name: 'direk.mp4', type: 'video/mp4', data: video },
    );
    const queued = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...form.headers, authorization: `Bearer ${alice.token}` }, body: form.payload });
    expect(queued.status).toBe(202);
    const { job_id: jobId } = (await queued.json()) as { job_id: string };
    await until(async () => {
      const job = await call<{ status: string }>(`/jobs/${jobId}`, alice.token, { headers: { 'idempotency-key': 'poll' } });
      return ['done', 'error'].includes(job.body.status) ? job.body.status : undefined;
    }, 'the job to finish', 180_000);

    // The manager views it (twice at once with one key: one view), downloads its JSON and the CSV.
    const views = await Promise.all([1, 2].map(() => call(`/jobs/${jobId}`, manager.token, { headers: { 'idempotency-key': 'view' } })));
    expect(views.map((v) => v.status)).toEqual([200, 200]);
    expect((await call(`/jobs/${jobId}/result.json`, manager.token)).status).toBe(200);
    const csv = await fetch(`${gateway}/orgs/${org.id}/jobs.csv?lang=en`, { headers: { authorization: `Bearer ${manager.token}` } });
    expect(csv.status).toBe(200);
    // Roles: alice promoted (twice at once: one change), then back to member.
    const promoted = await Promise.all([1, 2].map(() => send('PATCH', `/orgs/${org.id}/members/${alice.id}`, manager.token, { role: 'manager' })));
    expect(promoted.map((p) => p.status)).toEqual([200, 200]);
    expect((await call(`/orgs/${org.id}/audit`, alice.token)).status).toBe(200);
    expect((await send('PATCH', `/orgs/${org.id}/members/${alice.id}`, manager.token, { role: 'member' })).status).toBe(200);
    // Admin: the organisation's plan, a setting, the job deleted.
    expect((await send('PATCH', `/admin/orgs/${org.id}/quota`, admin.token, { monthly_limit: 500 })).status).toBe(200);
    expect((await send('PUT', '/admin/settings', admin.token, { require_email_verification: true })).status).toBe(200);
    const deletes = await Promise.all([1, 2].map(() => send('DELETE', `/admin/jobs/${jobId}`, admin.token)));
    expect(deletes.map((d) => d.status)).toContain(204);

    const expected: Array<[string, (e: Entry) => boolean]> = [
      ['auth.sign_in_failed', (e) => e.actor_id === alice.id],
      ['auth.signed_in', (e) => e.actor_id === manager.id],
      ['job.viewed', (e) => e.object_id === jobId && e.actor_id === manager.id],
      ['job.downloaded_json', (e) => e.object_id === jobId],
      ['jobs.downloaded_csv', (e) => e.object_id === org.id],
      ['member.role_changed', (e) => e.object_id === alice.id && e.details.role === 'manager'],
      ['member.role_changed', (e) => e.object_id === alice.id && e.details.role === 'member'],
      ['quota.changed', (e) => e.object_id === org.id],
      ['setting.changed', (e) => e.object_id === 'require_email_verification'],
      ['job.deleted', (e) => e.object_id === jobId],
    ];
    const all = await until(async () => {
      const res = await call<{ entries: Entry[] }>('/admin/audit?limit=500', admin.token);
      expect(res.status).toBe(200);
      return expected.every(([action, match]) => res.body.entries.some((e) => e.action === action && match(e))) ? res.body.entries : undefined;
    }, 'every entry to reach the identity service');
    for (const [action, match] of expected) expect(all.filter((e) => e.action === action && match(e)), action).toHaveLength(1);
    expect(all.find((e) => e.action === 'job.viewed' && e.actor_id === manager.id)).toMatchObject({ actor_email: manager.email, org_id: org.id, details: { owner: alice.id } });

    // Who reads the organisation's log.
    expect((await call(`/orgs/${org.id}/audit`, alice.token)).status).toBe(403);
    expect((await call(`/orgs/${org.id}/audit`, other.token)).status).toBe(404);
    expect((await call('/admin/audit', manager.token)).status).toBe(403);
    const mine = await call<{ entries: Entry[] }>(`/orgs/${org.id}/audit?limit=500`, manager.token);
    expect(mine.status).toBe(200);
    expect(mine.body.entries.length).toBeGreaterThanOrEqual(7);
    expect(mine.body.entries.every((e) => e.org_id === org.id)).toBe(true);
    const exported = await fetch(`${gateway}/orgs/${org.id}/audit.csv?lang=en&object=${jobId}`, { headers: { authorization: `Bearer ${manager.token}` } });
    expect(exported.status).toBe(200);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await exported.arrayBuffer());
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(text).toContain('job.viewed');
    expect(text).toContain('job.deleted');
  }, 400_000);
});
