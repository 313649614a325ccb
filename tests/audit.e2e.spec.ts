/**
 * The audit log through HTTP on the embedded run (issue 30): each audited action leaves exactly
 * one entry (retried and concurrent requests included), managers read their organisation's
 * entries, members and other organisations cannot, admins read everything, filters, the cursor and
 * the CSV export; the role change of a member; the log refuses changes in the event store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, runRelay, type Checkpoint } from '@baret/platform';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually, recordFinishedJob, startTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/jobs.js';

let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
  admin = await app.signUp('admin@baret.test');
}, 60_000);
afterAll(async () => {
  await app?.close();
});

interface Entry {
  id: string;
  at: string;
  action: string;
  outcome: string;
  actor_id: string | null;
  actor_email: string | null;
  org_id: string | null;
  object_type: string;
  object_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, string>;
}
interface Page {
  entries: Entry[];
  next_cursor: string | null;
}

let n = 0;
const person = (name: string) => {
  const email = `${name}${++n}@example.com`;
  return app.signUp(email).then((u) => ({ ...u, email }));
};
const req = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, token: string, payload?: unknown, headers?: Record<string, string>) =>
  app.request({ method, url, token, payload: payload as Record<string, unknown>, headers });

async function team() {
  const manager = await person('manager');
  const alice = await person('alice');
  const res = await req('POST', '/orgs', manager.token, { name: 'Boğaziçi Elektrik' });
  expect(res.statusCode, res.body).toBe(201);
  const org = res.json() as { id: string };
  const inv = (await req('POST', `/orgs/${org.id}/invites`, manager.token, { email: alice.email, role: 'member' })).json() as { token: string };
  expect((await req('POST', `/invites/${inv.token}/accept`, alice.token)).statusCode).toBe(200);
  return { manager, alice, org };
}


const finishedJob = (userId: string) => recordFinishedJob(app, userId, { job_type: 'genel_saha_girisi', required_groups: [], missing_groups: [], satisfied_equipment: [], violations: [] });

/** The admin's view of entries matching `query`, once `count` of them have arrived from the bus. */
async function entries(query: string, count: number): Promise<Entry[]> {
  return eventually(async () => {
    const res = await req('GET', `/admin/audit?limit=500&${query}`, admin.token);
    expect(res.statusCode, res.body).toBe(200);
    const list = (res.json() as Page).entries;
    return list.length >= count ? list : undefined;
  }, 15_000);
}

/** Waits for `count` entries, then a little more so a late duplicate would show; returns what is there. */
async function settled(query: string, count: number): Promise<Entry[]> {
  await entries(query, count);
  // Everything recorded so far has reached the log once a later marker entry arrives.
  const marker = await person('marker');
  await entries(`action=auth.signed_in&actor=${marker.id}`, 1);
  return (((await req('GET', `/admin/audit?limit=500&${query}`, admin.token)).json()) as Page).entries;
}

describe('audit log: one entry per action', () => {
  it('records sign-ins and failed sign-ins (wrong password, unknown address) without storing the address tried', async () => {
    const user = await person('signin');
    const bad = await app.request({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: 'wrong password!' }, headers: { 'user-agent': 'audit-test/1.0' } });
    expect(bad.statusCode).toBe(401);
    const unknown = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'nobody-here@example.com', password: 'whatever12' } });
    expect(unknown.statusCode).toBe(401);

    const mine = await settled(`actor=${user.id}`, 2);
    expect(mine.filter((e) => e.action === 'auth.signed_in')).toHaveLength(1); // signUp logs in once
    const failed = mine.filter((e) => e.action === 'auth.sign_in_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ outcome: 'failure', actor_email: user.email, object_type: 'user', object_id: user.id, user_agent: 'audit-test/1.0', details: { method: 'password', reason: 'wrong_password' } });
    expect(failed[0]!.ip).toBeTruthy();

    const all = await entries('action=auth.sign_in_failed', 2);
    const anonymous = all.filter((e) => e.actor_id === null && e.details.reason === 'unknown_account');
    expect(anonymous.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(anonymous)).not.toContain('nobody-here');
  });

  it('records a view of a finished job, a JSON and a PDF download once each, even when the request is sent twice at once', async () => {
    const { manager, alice, org } = await team();
    const jobId = await finishedJob(alice.id);
    // The manager opens the member's job twice at the same moment with one Idempotency-Key, then downloads.
    const key = { 'idempotency-key': 'view-1' };
    const views = await Promise.all([req('GET', `/jobs/${jobId}`, manager.token, undefined, key), req('GET', `/jobs/${jobId}`, manager.token, undefined, key)]);
    expect(views.map((v) => v.statusCode)).toEqual([200, 200]);
    const json = await req('GET', `/jobs/${jobId}/result.json`, manager.token);
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-disposition']).toContain(`baret-job-${jobId}.json`);
    expect((json.json() as { job_id: string }).job_id).toBe(jobId);
    // Pro plan for the PDF: the organisation's plan is the admin's to change (also audited).
    expect((await req('PATCH', `/admin/orgs/${org.id}/quota`, admin.token, { plan_name: 'pro' })).statusCode).toBe(200);
    // (the PDF is gated on the reader's own plan)
    expect((await req('PATCH', `/admin/users/${manager.id}/quota`, admin.token, { plan_name: 'pro' })).statusCode).toBe(200);
    const pdfs = await Promise.all([1, 2].map(() => req('GET', `/jobs/${jobId}/report.pdf?lang=en`, manager.token, undefined, { 'idempotency-key': 'pdf-1' })));
    expect(pdfs.map((p) => p.statusCode)).toEqual([200, 200]);

    const about = await settled(`object=${jobId}`, 3);
    const by = (action: string) => about.filter((e) => e.action === action);
    expect(by('job.viewed')).toHaveLength(1);
    expect(by('job.downloaded_json')).toHaveLength(1);
    expect(by('job.downloaded_pdf')).toHaveLength(1);
    expect(by('job.viewed')[0]).toMatchObject({ actor_id: manager.id, actor_email: manager.email, org_id: org.id, object_type: 'job', details: { owner: alice.id } });
    expect(by('job.downloaded_pdf')[0]!.details).toMatchObject({ lang: 'en' });
    const plan = await entries(`action=quota.changed&object=${org.id}`, 1);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatchObject({ actor_id: admin.id, org_id: org.id, object_type: 'org', details: { plan_name: 'pro' } });
  });

  it('records the jobs CSV export, an admin deleting a job (twice at once), and a quota change, once each', async () => {
    const { manager, alice, org } = await team();
    const csv = await req('GET', `/orgs/${org.id}/jobs.csv?lang=en`, manager.token);
    expect(csv.statusCode, csv.body).toBe(200);
    const jobId = await finishedJob(alice.id);
    // The delete sent twice at once: one deletion, one entry.
    const deletes = await Promise.all([req('DELETE', `/admin/jobs/${jobId}`, admin.token), req('DELETE', `/admin/jobs/${jobId}`, admin.token)]);
    expect(deletes.map((d) => d.statusCode)).toContain(204);
    const again = await req('DELETE', `/admin/jobs/${jobId}`, admin.token);
    expect([204, 404, 409]).toContain(again.statusCode);
    // The same limits twice: the second changes nothing and records nothing.
    for (let i = 0; i < 2; i++) expect((await req('PATCH', `/admin/users/${alice.id}/quota`, admin.token, { daily_limit: 7 })).statusCode).toBe(200);

    const [csvEntries, deleted, quota] = await Promise.all([
      settled(`action=jobs.downloaded_csv&object=${org.id}`, 1),
      entries(`action=job.deleted&object=${jobId}`, 1),
      entries(`action=quota.changed&object=${alice.id}`, 1),
    ]);
    expect(csvEntries).toHaveLength(1);
    expect(csvEntries[0]).toMatchObject({ actor_id: manager.id, org_id: org.id, object_type: 'org' });
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ actor_id: admin.id, org_id: org.id, details: { owner: alice.id } });
    expect(quota).toHaveLength(1);
    expect(quota[0]).toMatchObject({ object_type: 'user', details: { daily_limit: '7' } });
  });

  it('records an admin setting change once per setting changed', async () => {
    for (let i = 0; i < 2; i++) expect((await req('PUT', '/admin/settings', admin.token, { require_email_verification: true })).statusCode).toBe(200);
    expect((await req('PUT', '/admin/settings', admin.token, { require_email_verification: false })).statusCode).toBe(200);
    const changes = await settled('action=setting.changed&object=require_email_verification', 2);
    expect(changes).toHaveLength(2);
    expect(changes.map((c) => c.details.value).sort()).toEqual(['false', 'true']);
  });
});

describe('audit log: changing a member’s role', () => {
  it('lets a manager promote and demote a member, keeps the last manager, and records each change once', async () => {
    const { manager, alice, org } = await team();
    const url = `/orgs/${org.id}/members/${alice.id}`;
    // A member cannot change roles; the last manager cannot demote themselves.
    expect((await req('PATCH', `/orgs/${org.id}/members/${manager.id}`, alice.token, { role: 'member' })).statusCode).toBe(403);
    const last = await req('PATCH', `/orgs/${org.id}/members/${manager.id}`, manager.token, { role: 'member' });
    expect(last.statusCode).toBe(409);
    expect((last.json() as { code: string }).code).toBe('illegal_state');
    // Promoted twice at once: one change.
    const promoted = await Promise.all([req('PATCH', url, manager.token, { role: 'manager' }), req('PATCH', url, manager.token, { role: 'manager' })]);
    expect(promoted.map((p) => p.statusCode)).toEqual([200, 200]);
    expect((promoted[0]!.json() as { role: string }).role).toBe('manager');
    // Alice is a manager on her next request: she reads the audit log, and now the first manager may step down.
    expect((await req('GET', `/orgs/${org.id}/audit`, alice.token)).statusCode).toBe(200);
    const down = await req('PATCH', `/orgs/${org.id}/members/${manager.id}`, manager.token, { role: 'member' });
    expect(down.statusCode, down.body).toBe(200);
    expect((await req('GET', `/orgs/${org.id}/audit`, manager.token)).statusCode).toBe(403);
    const other = await person('outsider');
    expect((await req('PATCH', url, other.token, { role: 'member' })).statusCode).toBe(404);

    const changes = await settled('action=member.role_changed', 2);
    const ofOrg = changes.filter((e) => e.org_id === org.id);
    expect(ofOrg).toHaveLength(2);
    expect(ofOrg.find((e) => e.object_id === alice.id)).toMatchObject({ actor_id: manager.id, details: { role: 'manager', previous_role: 'member' } });
    expect(ofOrg.find((e) => e.object_id === manager.id)).toMatchObject({ actor_id: manager.id, details: { role: 'member', previous_role: 'manager' } });
  });
});

describe('audit log: who reads it', () => {
  it('shows managers their organisation’s entries only; members get 403, other organisations 404; filters, cursor and CSV', async () => {
    const { manager, alice, org } = await team();
    const jobId = await finishedJob(alice.id);
    for (let i = 0; i < 3; i++) expect((await req('GET', `/jobs/${jobId}`, manager.token, undefined, { 'idempotency-key': `v${i}` })).statusCode).toBe(200);
    const theirs = await team();

    const read = (token: string, query = '') => req('GET', `/orgs/${org.id}/audit${query}`, token);
    expect((await read(alice.token)).statusCode).toBe(403);
    expect((await read(alice.token, '.csv')).statusCode).toBe(403);
    expect((await read(theirs.manager.token)).statusCode).toBe(404);
    expect((await req('GET', '/admin/audit', manager.token)).statusCode).toBe(403);

    const views = await eventually(async () => {
      const page = (await read(manager.token, `?action=job.viewed&object=${jobId}`)).json() as Page;
      return page.entries.length >= 3 ? page.entries : undefined;
    }, 15_000);
    expect(views).toHaveLength(3);
    // Only this organisation's entries: no sign-ins of the other team, nothing without this org.
    const everything = (await read(manager.token, '?limit=500')).json() as Page;
    expect(everything.entries.every((e) => e.org_id === org.id)).toBe(true);
    expect(everything.entries.some((e) => e.actor_id === theirs.manager.id)).toBe(false);

    // The cursor walks the same entries page by page, newest first, without repeats.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await read(manager.token, `?action=job.viewed&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = res.json() as Page;
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(views.map((v) => v.id));
    // Dates: nothing before today in a range that ends yesterday.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(((await read(manager.token, `?to=${yesterday}`)).json() as Page).entries).toHaveLength(0);
    expect((await read(manager.token, '?from=not-a-date')).statusCode).toBe(400);

    const csv = await read(manager.token, '.csv?lang=en&action=job.viewed');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.startsWith('\uFEFF')).toBe(true);
    const lines = csv.body.slice(1).trim().split('\r\n');
    expect(lines[0]).toBe('Time (UTC),Action,Outcome,User id,E-mail,Organisation,Object type,Object,Address,Browser,Details');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(manager.email);
    const tr = await read(manager.token, '?format=csv&lang=tr&action=job.viewed');
    expect(tr.body.slice(1).split('\r\n')[0]).toContain('Zaman (UTC);İşlem;Sonuç');

    const adminCsv = await req('GET', `/admin/audit.csv?lang=en&object=${jobId}`, admin.token);
    expect(adminCsv.statusCode).toBe(200);
    expect(adminCsv.body.slice(1).trim().split('\r\n')).toHaveLength(4);
  });
});

describe('audit log: append-only', () => {
  it('has no route to change or delete an entry, and the event store refuses to change or delete one', async () => {
    const user = await person('append');
    const [entry] = await entries(`actor=${user.id}`, 1);
    expect((await req('DELETE', `/admin/audit/${entry!.id}`, admin.token)).statusCode).toBe(404);
    expect((await req('PATCH', `/admin/audit/${entry!.id}`, admin.token, {})).statusCode).toBe(404);
    // The same event delivered again by the bus (at least once) adds nothing and changes nothing.
    const again = await app.identity.audit.keep({
      entry_id: entry!.id,
      action: 'auth.signed_in',
      actor_id: 'someone-else',
      object_type: 'user',
      outcome: 'success',
      details: {},
      at: entry!.at,
      source: 'identity',
    });
    expect(again).toBe(false);
    const after = await entries(`actor=${user.id}`, 1);
    expect(after).toEqual([entry]);
    // A second connection to the embedded database, as an operator's tool would open it.
    const db = openSqlite(join(app.dir, 'baret.db'));
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM es_events WHERE stream_id = ?').get(`audit-${entry!.id}`)).toEqual({ n: 1 });
      expect(() => db.prepare("UPDATE es_events SET data = '{}' WHERE stream_id = ?").run(`audit-${entry!.id}`)).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM es_events WHERE stream_id = ?').run(`audit-${entry!.id}`)).toThrow(/append-only/);
    } finally {
      db.close();
    }
  });
});

describe('audit log: cancelling a job', () => {
  it('records an admin cancelling a queued job once, even when asked twice at once', async () => {
    // Jobs stay queued here (no analysis worker): only the relay and the log's consumer run.
    const fx = await videoFixtures();
    const quiet = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { background: false, realClock: true });
    const controller = new AbortController();
    try {
      const { eventStore, bus, documents } = quiet.infra;
      const running = [
        runRelay({ name: 'relay:test', eventStore, bus, checkpoints: documents.collection<Checkpoint>('checkpoints'), signal: controller.signal }),
        ...quiet.identity.audit.tasks.map((t) => t.run(controller.signal)),
      ];
      const boss = await quiet.signUp('admin@baret.test');
      const crew = await quiet.signUp('crew@example.com');
      const video = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
      const form = await multipart(
        { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }) },
        { name: 'direk.mp4', type: 'video/mp4', data: video },
      );
      const queued = await quiet.request({ method: 'POST', url: '/analyze', token: crew.token, ...form });
      expect(queued.statusCode, queued.body).toBe(202);
      const jobId = (queued.json() as { job_id: string }).job_id;
      const cancels = await Promise.all([1, 2].map(() => quiet.request({ method: 'POST', url: `/admin/jobs/${jobId}/cancel`, token: boss.token })));
      expect(cancels.map((c) => c.statusCode)).toContain(202);
      const read = async () => ((await quiet.request({ method: 'GET', url: `/admin/audit?object=${jobId}`, token: boss.token })).json() as Page).entries;
      const found = await eventually(async () => ((await read()).length > 0 ? read() : undefined), 15_000);
      // A later entry has arrived, so a second one for the cancel would have too.
      await quiet.signUp('later@example.com');
      await eventually(async () => {
        const page = (await quiet.request({ method: 'GET', url: '/admin/audit?action=auth.signed_in&limit=500', token: boss.token })).json() as Page;
        return page.entries.length >= 3 ? true : undefined;
      }, 15_000);
      const all = await read();
      expect(found.length).toBeGreaterThan(0);
      expect(all.filter((e) => e.action === 'job.cancelled')).toHaveLength(1);
      expect(all.find((e) => e.action === 'job.cancelled')).toMatchObject({ actor_id: boss.id, object_type: 'job', details: { owner: crew.id } });
      controller.abort();
      await Promise.all(running);
    } finally {
      controller.abort();
      await quiet.close();
      await fx.dispose();
    }
  }, 120_000);
});
