/**
 * Export and erasure of a person on the embedded run (issue 30, docs/adr/0025). A user with a
 * personal job and a job of their organisation (both analysed for real), an API key, notifications:
 * `GET /me/export` is a ZIP with every item; `DELETE /me` needs the password; afterwards their
 * sessions and key are refused, the personal job is gone, the organisation's job stays with the
 * owner shown as a deleted user, and the address appears in no store: not in the SQLite file
 * (events, read models, the bus log), not in any object.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
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
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

const EMAIL = 'Zeynep.Erase@Example.com';
const NAME = 'Zeynep Silinecekoğlu';

/** Every file under a folder. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

/** Whether any byte sequence of the file is the address (as UTF-8, any case) or the name. */
function holds(path: string): string | null {
  const bytes = readFileSync(path);
  const lower = bytes.toString('latin1').toLowerCase();
  if (lower.includes(EMAIL.toLowerCase())) return 'email';
  if (bytes.includes(Buffer.from(NAME, 'utf8'))) return 'name';
  // UTF-16 (SQLite text can be stored so): the address with zero bytes between its characters.
  if (bytes.includes(Buffer.from(EMAIL.toLowerCase(), 'utf16le'))) return 'email (utf-16)';
  return null;
}

describe('export and erasure (embedded)', () => {
  it('the export contains every item; after erasure the user’s e-mail appears in no store', async () => {
    const admin = await app.signUp('admin@baret.test');
    const me = await app.signUp(EMAIL, 'correct horse battery', NAME);
    const params = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 };
    const personal = (await submitVideo(app, me.token, clip, params, 'kisisel.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, me.token, personal.job_id, undefined, 120_000)).status).toBe('done');
    const org = (await app.request({ method: 'POST', url: '/orgs', token: me.token, payload: { name: 'Zeynep Enerji' } })).json() as { id: string };
    const token = ((await app.request({ method: 'POST', url: '/auth/login', payload: { email: EMAIL, password: 'correct horse battery' } })).json() as { access_token: string }).access_token;
    const orgJob = (await submitVideo(app, token, clip, params, 'ekip.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, token, orgJob.job_id, undefined, 120_000)).status).toBe('done');
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token, payload: { name: 'script' } })).json() as { token: string };
    // The "report ready" notices are in the bell.
    await eventually(async () => {
      const list = (await app.request({ method: 'GET', url: '/notifications', token })).json() as { items?: unknown[] } | unknown[];
      const items = Array.isArray(list) ? list : (list.items ?? []);
      return items.length >= 2 ? true : undefined;
    }, 30_000);

    // The export: every item listed, evidence images included, streamed as a ZIP.
    const exported = await app.request({ method: 'GET', url: '/me/export', token });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('application/zip');
    expect(String(exported.headers['content-disposition'])).toMatch(/^attachment; filename="baret-export-\d{4}-\d{2}-\d{2}\.zip"$/);
    const files = unzipSync(new Uint8Array(exported.rawPayload));
    const json = (name: string) => JSON.parse(new TextDecoder().decode(files[name])) as Record<string, unknown>;
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['README.txt', 'export.json', 'profile.json', 'notifications.json', 'jobs.json', `jobs/${personal.job_id}/job.json`, `jobs/${orgJob.job_id}/job.json`]));
    expect(json('profile.json')).toMatchObject({ id: me.id, email: EMAIL, full_name: NAME, organisation: { org_id: org.id, role: 'manager' }, api_keys: [{ name: 'script' }] });
    // The audit log's entries about them: at least their own sign-in.
    expect((json('profile.json') as { audit_entries: Array<{ action: string }> }).audit_entries.map((e) => e.action)).toContain('auth.signed_in');
    expect((json('notifications.json').notifications as unknown[]).length).toBeGreaterThanOrEqual(2);
    // The README promises only files the ZIP has (issue 40: it listed an audit.json that was never there).
    const promised = new TextDecoder().decode(files['README.txt']).split('\n').map((line) => line.split(/\s+/)[0] ?? '').filter((name) => /^[\w-]+\.json$/.test(name));
    expect(promised.length).toBeGreaterThan(2);
    for (const name of promised) expect(Object.keys(files), name).toContain(name);
    expect(json(`jobs/${personal.job_id}/job.json`)).toMatchObject({ id: personal.job_id, status: 'done', input_filename: 'kisisel.mp4' });
    expect(json(`jobs/${personal.job_id}/job.json`).result).not.toBeNull();
    const images = Object.keys(files).filter((f) => f.startsWith(`jobs/${personal.job_id}/`) && f.endsWith('.jpg'));
    expect(images.length).toBeGreaterThan(0);
    expect([...files[images[0]!]!.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect((await app.request({ method: 'GET', url: '/me/export' })).statusCode).toBe(401);

    // Erasure needs the password.
    const wrong = await app.request({ method: 'DELETE', url: '/me', token, payload: { password: 'not my password' } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toMatchObject({ code: 'reauthentication_required' });
    expect((await app.request({ method: 'DELETE', url: '/me', token, payload: {} })).statusCode).toBe(403);
    const erased = await app.request({ method: 'DELETE', url: '/me', token, payload: { password: 'correct horse battery' } });
    expect(erased.statusCode, erased.body).toBe(204);

    // Sessions and API keys end; the address is free; login fails.
    expect((await app.request({ method: 'GET', url: '/auth/me', token })).statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/auth/me', token: key.token })).statusCode).toBe(401);
    expect((await app.request({ method: 'POST', url: '/auth/login', payload: { email: EMAIL, password: 'correct horse battery' } })).statusCode).toBe(401);

    // The personal job is purged; the organisation's job stays, its owner a deleted user.
    await eventually(async () => ((await app.job.jobs.get(personal.job_id)) === null ? true : undefined), 30_000);
    const kept = await eventually(async () => {
      const list = (await app.request({ method: 'GET', url: '/admin/jobs', token: admin.token })).json() as Array<{ job_id: string; user_email: string; user_full_name: string | null }>;
      const job = list.find((j) => j.job_id === orgJob.job_id);
      return job?.user_full_name === 'deleted user' ? job : undefined;
    }, 30_000);
    expect(kept.user_email).toBe('');
    // (its objects go right after its read-model row)
    await eventually(async () => ((await app.infra.objects.list(`jobs/${personal.job_id}/`)).length === 0 ? true : undefined), 30_000);
    expect((await app.infra.objects.list(`jobs/${orgJob.job_id}/`)).length).toBeGreaterThan(0);

    // Every consumer has handled the erasure; the bus log keeps nothing they handled.
    await eventually(async () => ((await app.notification.cols.inApp.count({ user_id: me.id })) === 0 ? true : undefined), 30_000);
    await eventually(async () => {
      const lag = (await app.infra.bus.lag?.()) ?? [];
      return lag.every((l) => l.lag === 0) ? true : undefined;
    }, 30_000);
    app.pruneBus();

    // No store holds the address or the name: no row of any table (events, read models, bus log,
    // keys), and no byte of the SQLite file (after a checkpoint: free pages included) or any object.
    const db = (app.infra.documents as unknown as { db: Database.Database }).db;
    const rows: string[] = [];
    for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
      for (const row of db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${name}"`).all()) {
        const text = Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v))).join(' ');
        if (text.toLowerCase().includes(EMAIL.toLowerCase()) || text.includes(NAME)) rows.push(`${name}: ${text.slice(0, 300)}`);
      }
    }
    expect(rows).toEqual([]);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const found = filesUnder(app.dir)
      .map((f) => [f.slice(app.dir.length), holds(f)] as const)
      .filter(([, what]) => what !== null);
    expect(found).toEqual([]);
  }, 400_000);
});

/**
 * The export and the unblurred copies (issue 37): an organisation whose managers may see unblurred
 * evidence (`managers_see_unblurred`). A member's export holds the blurred evidence of their job but
 * never the unblurred copy the evidence routes refuse them (403); a manager's export of their job of
 * the organisation holds it, as the routes let them see it.
 */
const unblurredParams = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 };

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

    const submitted = await submitVideo(app, member.token, clip, unblurredParams, 'ekip.mp4');
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
    const own = (await submitVideo(app, manager.token, clip, unblurredParams, 'yonetici.mp4')).json() as { job_id: string };
    expect((await waitForJob(app, manager.token, own.job_id, undefined, 180_000)).status).toBe('done');
    expect((await exportedFiles(manager.token)).filter((f) => f.startsWith(`jobs/${own.job_id}/unblurred/`)).length).toBeGreaterThan(0);
  }, 420_000);
});
