/**
 * Retention on the distributed run (issue 30, docs/adr/0025): every service its own process over
 * PostgreSQL, Kafka, FerretDB and MinIO. An organisation keeps jobs 1 day; a real analysis runs;
 * the job service is started again with its clock moved 2 days (BARET_CLOCK_OFFSET), its sweep at
 * start purges the job, and the job, its objects in MinIO, its rows in the job service's MongoDB
 * database and the readable personal payload of its events in PostgreSQL are gone; `job_purged`
 * is recorded once. Before that, the person's export through the gateway. The embedded run: tests/retention.e2e.spec.ts.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { unzipSync } from 'fflate';
import { MongoDocumentStore, PostgresEventStore, S3ObjectStore, ShreddingEventStore } from '@baret/platform';
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { distributedEngines, startDistributedStack, type DistributedStack } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { api } from './helpers/process.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('retention, distributed', ok, engine));
const FILENAME = 'Direk-Uskudar-Mehmet.mp4';

describe.skipIf(!installed)('retention on the distributed run', () => {
  let stack: DistributedStack;
  let gateway: string;
  let fx: Awaited<ReturnType<typeof videoFixtures>>;
  let video: Buffer;

  const call = <T>(path: string, token: string, init: RequestInit = {}) => api<T>(gateway, path, { ...init, token, headers: { 'accept-language': 'en', ...(init.headers as Record<string, string>) } });
  const login = async (email: string) =>
    (await api<{ access_token: string }>(gateway, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'correct horse battery' }) })).body.access_token;

  beforeAll(async () => {
    fx = await videoFixtures();
    video = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
    stack = await startDistributedStack({
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
      onLine: (name, line) => {
        if (/"level":"(error|fatal)"/.test(line)) process.stderr.write(`[${name}] ${line.slice(0, 2000)}\n`);
      },
    });
    gateway = stack.gateway;
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    await fx?.dispose();
  }, 120_000);

  it('with retention set to 1 day and the job service’s clock moved, the job, its objects, read models and readable event payloads are gone', async () => {
    const email = 'mehmet.manager@example.com';
    expect((await api(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: 'correct horse battery' }) })).status).toBe(201);
    const org = await call<{ id: string }>('/orgs', await login(email), { method: 'POST', body: JSON.stringify({ name: 'Üsküdar Enerji' }) });
    expect(org.status).toBe(201);
    const token = await login(email);
    const set = await call(`/orgs/${org.body.id}/retention`, token, { method: 'PUT', body: JSON.stringify({ days: 1 }) });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    const body = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }) },
      { name: FILENAME, type: 'video/mp4', data: video },
    );
    const res = await fetch(`${gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${token}` }, body: body.payload });
    expect(res.status).toBe(202);
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    for (let i = 0; ; i++) {
      const job = await call<{ status: string }>(`/jobs/${jobId}`, token);
      if (job.body.status === 'done') break;
      expect(['queued', 'running'], JSON.stringify(job.body)).toContain(job.body.status);
      expect(i).toBeLessThan(600);
      await new Promise((r) => setTimeout(r, 200));
    }

    // The export through the gateway: the job service writes the ZIP with identity's and notification's parts.
    const exported = await fetch(`${gateway}/me/export`, { headers: { authorization: `Bearer ${token}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await exported.arrayBuffer()));
    const profile = JSON.parse(new TextDecoder().decode(files['profile.json'])) as Record<string, unknown>;
    expect(profile).toMatchObject({ email, organisation: { org_id: org.body.id, role: 'manager' } });
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['notifications.json', 'jobs.json', `jobs/${jobId}/job.json`]));
    expect(Object.keys(files).some((f) => f.startsWith(`jobs/${jobId}/`) && f.endsWith('.jpg'))).toBe(true);

    const objects = await S3ObjectStore.connect({ ...stack.s3, prefix: 'media/' });
    const mongo = await MongoDocumentStore.connect(stack.env.MONGODB_URL!, `${stack.env.MONGODB_DATABASE ?? 'baret'}_job`);
    const client = new pg.Client({ connectionString: stack.env.POSTGRES_URL });
    await client.connect();
    const events = await PostgresEventStore.connect(stack.env.POSTGRES_URL!, { schema: 'baret_job' });
    const store = new ShreddingEventStore(events, events.subjectKeys());
    try {
      expect((await objects.list(`jobs/${jobId}/`)).length).toBeGreaterThan(0);
      expect(await mongo.collection('job_jobs').get(jobId)).not.toBeNull();
      expect((await store.readStream(`job-${jobId}`))[0]!.data).toMatchObject({ input_filename: FILENAME });

      // The job service again, its clock two days on: its sweep at start purges the job.
      stack.env.BARET_CLOCK_OFFSET = '2d';
      await stack.stop('job');
      await stack.start('job');
      for (let i = 0; ; i++) {
        if ((await store.readStream(`job-${jobId}`)).some((e) => e.type === 'job_purged')) break;
        expect(i).toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 200));
      }

      expect((await call(`/jobs/${jobId}`, await login(email))).status).toBe(404);
      expect(await objects.list(`jobs/${jobId}/`)).toEqual([]);
      expect(await objects.list(`uploads/${jobId}/`)).toEqual([]);
      expect(await mongo.collection('job_jobs').get(jobId)).toBeNull();
      expect(await mongo.collection('job_compliance').get(jobId)).toBeNull();
      // A reader that never saw the key (this test's store cached it above, as a replica would for up to a minute).
      const after = new ShreddingEventStore(events, events.subjectKeys());
      const read = await after.readStream(`job-${jobId}`);
      expect(read.filter((e) => e.type === 'job_purged').map((e) => e.data)).toEqual([{ job_id: jobId, org_id: org.body.id, reason: 'retention', at: expect.any(String) as string }]);
      expect(read.find((e) => e.type === 'job_queued')!.data).toMatchObject({ job_id: jobId, input_filename: null, user_email: null });
      expect(read.find((e) => e.type === 'job_completed')!.data).toMatchObject({ result: {} });
      const rows = await client.query<{ data: string }>('SELECT data::text AS data FROM baret_job.events WHERE stream_id = $1', [`job-${jobId}`]);
      expect(rows.rows.length).toBe(read.length);
      expect(rows.rows.map((r) => r.data).join('\n')).not.toContain(FILENAME);
      expect((await client.query('SELECT subject FROM baret_job.subject_keys WHERE subject = $1', [`job:${jobId}`])).rowCount).toBe(0);
    } finally {
      await store.close();
      await client.end();
      await mongo.close();
      await objects.close();
    }
  }, 420_000);
});
