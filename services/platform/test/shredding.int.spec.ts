/**
 * Crypto-shredding (issue 30, docs/adr/0025) on both SQL event stores: personal fields are stored
 * sealed, read back whole while the key exists, and read as their redacted form (never crashing a
 * reader) once the key is shredded; the raw table holds no personal value at any time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  openSqlite,
  PostgresEventStore,
  ShreddingEventStore,
  SqliteEventStore,
  SqliteSubjectKeyStore,
  type EventStore,
} from '@baret/platform';
import { engineInstalled, postgresBinDir, startPostgres, type RunningPostgres } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const EMAIL = 'ayse.yilmaz@example.com';

const queued = (jobId: string, userId: string) => ({
  type: 'job_queued',
  data: {
    job_id: jobId,
    user_id: userId,
    user_email: EMAIL,
    user_full_name: 'Ayşe Yılmaz',
    input_filename: 'direk-ayse.mp4',
    video_key: `uploads/${jobId}/video`,
    video_size: 10,
    params: { job_type: 'auto' },
    queued_at: '2026-01-01T00:00:00.000Z',
    org_id: 'org-1',
    work_order: 'WO-Ayşe',
  },
});
const completed = { type: 'job_completed', data: { job_id: 'j1', user_id: 'u1', at: 'x', input_filename: 'direk-ayse.mp4', result: { violations: [{ code: 'pic1' }] }, violation_count: 1 } };

async function behaviour(make: () => Promise<{ store: ShreddingEventStore; raw: () => Promise<string> }>) {
  const { store, raw } = await make();
  await store.appendToStream('job-j1', [queued('j1', 'u1'), completed]);
  await store.appendToStream('user-u1', [{ type: 'user_registered', data: { user_id: 'u1', email: EMAIL, full_name: 'Ayşe Yılmaz', password_hash: 'h', is_admin: false } }]);

  // Stored sealed: no personal value in the table, readable through the store.
  expect(await raw()).not.toContain(EMAIL);
  expect(await raw()).not.toContain('direk-ayse');
  const [q, c] = await store.readStream('job-j1');
  expect(q!.data).toMatchObject({ user_email: EMAIL, user_full_name: 'Ayşe Yılmaz', input_filename: 'direk-ayse.mp4', work_order: 'WO-Ayşe', org_id: 'org-1' });
  expect(c!.data).toMatchObject({ result: { violations: [{ code: 'pic1' }] }, violation_count: 1 });
  const subscribed: unknown[] = [];
  const controller = new AbortController();
  for await (const e of store.subscribeToAll({ signal: controller.signal })) {
    subscribed.push(e.data);
    if (subscribed.length === 3) controller.abort();
  }
  expect(subscribed[0]).toMatchObject({ user_email: EMAIL });

  // The user erased: their name and address in the job are gone, the job's result stays.
  expect(await store.shred('user:u1')).toBe(true);
  const [q2, c2] = await store.readStream('job-j1');
  expect(q2!.data).toMatchObject({ user_email: null, user_full_name: null, input_filename: 'direk-ayse.mp4', org_id: 'org-1' });
  expect(c2!.data).toMatchObject({ result: { violations: [{ code: 'pic1' }] } });
  expect((await store.readStream('user-u1'))[0]!.data).toMatchObject({ user_id: 'u1', email: null, full_name: null, password_hash: null, is_admin: false });

  // The job's key shredded (retention): everything personal reads redacted, in shapes readers survive.
  expect(await store.shred('job:j1')).toBe(true);
  expect(await store.shred('job:j1')).toBe(false);
  const [q3, c3] = await store.readStream('job-j1');
  expect(q3!.data).toMatchObject({ job_id: 'j1', user_id: 'u1', user_email: null, input_filename: null, work_order: null, params: { job_type: 'auto' } });
  expect(c3!.data).toMatchObject({ result: {}, violation_count: 1 });
  // Appending to a shredded job works (a purge event), with a fresh key.
  await store.appendToStream('job-j1', [{ type: 'job_purged', data: { job_id: 'j1', org_id: 'org-1', reason: 'retention', at: 'x' } }]);
  expect((await store.readStream('job-j1')).map((e) => e.type)).toEqual(['job_queued', 'job_completed', 'job_purged']);
  await store.close();
}

describe('crypto-shredding on SQLite', () => {
  it('seals personal fields, opens them while the key lives, redacts them after shredding; the file holds no address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baret-shred-'));
    try {
      const db = openSqlite(join(dir, 'baret.db'));
      await behaviour(() =>
        Promise.resolve({
          store: new ShreddingEventStore(new SqliteEventStore(db), new SqliteSubjectKeyStore(db)),
          raw: () => {
            db.pragma('wal_checkpoint(TRUNCATE)');
            return Promise.resolve(readFileSync(join(dir, 'baret.db')).toString('latin1') + JSON.stringify(db.prepare('SELECT data FROM es_events').all()));
          },
        }),
      );
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const installed = engineInstalled('crypto-shredding on PostgreSQL', postgresBinDir() !== null, 'PostgreSQL');
describe.skipIf(!installed)('crypto-shredding on PostgreSQL', () => {
  let server: RunningPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('seals personal fields, opens them while the key lives, redacts them after shredding; the events table holds no address', async () => {
    const inner = await PostgresEventStore.connect(server.url, { schema: 'shred_1' });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await behaviour(() =>
        Promise.resolve({
          store: new ShreddingEventStore(inner as EventStore, inner.subjectKeys()),
          raw: async () => JSON.stringify((await client.query('SELECT data::text FROM shred_1.events')).rows),
        }),
      );
      // The keys live apart from the events, in a table of their own; shredded subjects have no row
      // (the purge event holds nothing personal, so it made no new key).
      const keys = await client.query<{ subject: string }>('SELECT subject FROM shred_1.subject_keys ORDER BY subject');
      expect(keys.rows.map((r) => r.subject)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
