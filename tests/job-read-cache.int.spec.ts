/**
 * Issue 27: the job service's read cache (docs/adr/0019) on the real stores — PostgreSQL and
 * FerretDB with two job replicas, as in the distributed run, and SQLite, as in the embedded run.
 * `GET /jobs` and `GET /jobs/{id}` through each replica's own HTTP server (the credential the
 * gateway sends): a job's new state shows at once on the replica that ran the command and soon on
 * the other, a user never gets another's jobs, and nothing is served from memory while the
 * replica's projection runner is not following the event store.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildServiceApp,
  createLogger,
  FsObjectStore,
  MongoDocumentStore,
  parseConfig,
  PostgresEventStore,
  runProjection,
  SERVICE_HEADER,
  signServiceToken,
  createEmbeddedInfrastructure,
  type Infrastructure,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type Principal,
  type QuotaClient,
} from '@baret/platform';
import { engineInstalled, ferretDbBinary, postgresBinDir, startFerretDb, startPostgres } from '@baret/platform/testing';
import { createJobService, type JobService } from '@baret/job';
import type { FastifyInstance } from 'fastify';
import { eventually } from './helpers/app.js';

const SECRET = 'service-secret-service-secret-0123456789';
const config = { ...parseConfig({ LOG_LEVEL: 'silent', SERVICE_SECRET: SECRET }), JWT_SECRET: 'jwt-secret-jwt-secret-jwt-secret-012345', BARET_DATA_DIR: tmpdir() };
const log = createLogger('silent');

/** A quota that always has a unit (the quota service is not what is tested here). */
const quota: QuotaClient = {
  getQuota: async () => ({}) as Awaited<ReturnType<QuotaClient['getQuota']>>,
  reserve: async () => ({ ok: true }) as Awaited<ReturnType<QuotaClient['reserve']>>,
  release: async () => undefined,
};

interface Replica {
  job: JobService;
  app: FastifyInstance;
  /** Stops its projection runner (as when it fails), or starts it again. */
  stopRunner(): Promise<void>;
  startRunner(): void;
  close(): Promise<void>;
}

async function startReplica(eventStore: EventStore, documents: DocumentStore, dir: string): Promise<Replica> {
  const job = createJobService({
    eventStore,
    documents,
    objects: await new FsObjectStore(join(dir, `objects-${randomUUID()}`)).init(),
    bus: {} as MessageBus, // its background consumers are not run here
    quota,
    tasks: { list: async () => [] } as never,
    probe: async () => {
      throw new Error('no uploads here');
    },
    maxUploadBytes: 1024,
    scratchDir: dir,
    log,
  });
  const app = await buildServiceApp({ name: 'job', config, log, modules: [job.module], ready: async () => undefined });
  await app.ready();
  let controller: AbortController | null = null;
  let running: Promise<void> = Promise.resolve();
  const startRunner = () => {
    const c = (controller = new AbortController());
    running = runProjection({ projection: job.projections[0]!, eventStore, documents, signal: c.signal, log }).catch(() => undefined);
  };
  const stopRunner = async () => {
    controller?.abort();
    await running;
  };
  startRunner();
  return { job, app, startRunner, stopRunner, close: async () => (await stopRunner(), await app.close()) };
}

const principal = (userId: string): Principal => ({ userId, email: `${userId}@example.com`, fullName: null, isAdmin: false, via: 'jwt' });

async function list(r: Replica, userId: string): Promise<Array<{ job_id: string; status: string }>> {
  const res = await r.app.inject({ url: '/jobs', headers: { [SERVICE_HEADER]: signServiceToken(SECRET, { iss: 'gateway', principal: principal(userId) }), 'accept-language': 'en' } });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function getJob(r: Replica, userId: string, jobId: string): Promise<number> {
  const res = await r.app.inject({ url: `/jobs/${jobId}`, headers: { [SERVICE_HEADER]: signServiceToken(SECRET, { iss: 'gateway', principal: principal(userId) }) } });
  return res.statusCode;
}

/** A finished job of the user, recorded by replica `r` (its command, its inline projection). */
async function finishedJob(r: Replica, userId: string): Promise<string> {
  const at = new Date();
  return r.job.recordFinishedJobWithoutVideo(principal(userId), {
    queued_at: at,
    finished_at: at,
    job_type: 'general',
    input_filename: 'clip.mp4',
    result: { job_type: 'general', required_groups: [], missing_groups: [], satisfied_equipment: [], violations: [] },
    site_id: null,
    crew_id: null,
    work_order: null,
  });
}

/** Waits until the replica's runner has caught up with the store (its cache is in use). */
const live = (r: Replica) => eventually(async () => (r.job.cache.live ? true : undefined), 10_000);

/** The time until `check` holds, polling as fast as the replica answers. */
async function timeUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error('not seen in time');
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - start;
}

const pgInstalled = engineInstalled('job read cache (PostgreSQL)', postgresBinDir() !== null, 'PostgreSQL') && engineInstalled('job read cache (FerretDB)', ferretDbBinary() !== null, 'FerretDB');

describe.skipIf(!pgInstalled)('the job read cache, two job replicas on PostgreSQL and FerretDB', () => {
  let pg: Awaited<ReturnType<typeof startPostgres>>;
  let ferret: Awaited<ReturnType<typeof startFerretDb>>;
  const stores: Array<{ close(): Promise<void> }> = [];
  let a: Replica;
  let b: Replica;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-read-cache-'));
    [pg, ferret] = await Promise.all([startPostgres(), startFerretDb()]);
    // Each replica with its own connections, as two processes would have.
    const replica = async () => {
      const eventStore = await PostgresEventStore.connect(pg.url);
      const documents = await MongoDocumentStore.connect(ferret.url, 'baret');
      stores.push(eventStore, documents);
      return startReplica(eventStore, documents, dir);
    };
    a = await replica();
    b = await replica();
    await Promise.all([live(a), live(b)]);
  }, 180_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close().catch(() => undefined);
    await Promise.all([pg?.stop(), ferret?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('shows a job recorded on one replica at once there, and within a second on the other, whose list was kept in memory', async () => {
    const user = randomUUID();
    // Both replicas keep the user's (empty) list.
    expect(await list(a, user)).toEqual([]);
    expect(await list(b, user)).toEqual([]);
    expect(await list(b, user)).toEqual([]);
    expect(b.job.cache.size.users).toBeGreaterThan(0);

    const jobId = await finishedJob(a, user);
    // The replica that ran the commands: at once (its inline projection dropped the entry).
    expect((await list(a, user)).map((j) => [j.job_id, j.status])).toEqual([[jobId, 'done']]);
    // The other: once its runner has applied the events.
    const ms = await timeUntil(async () => (await list(b, user)).some((j) => j.job_id === jobId && j.status === 'done'));
    console.log(`a job recorded on replica A showed on replica B's cached list after ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1_000);

    // Deleted on B: gone from B's list and GET at once, from A's within a second.
    expect(await getJob(a, user, jobId)).toBe(200);
    expect(await getJob(a, user, jobId)).toBe(200);
    await b.job.remove(jobId, user);
    expect(await list(b, user)).toEqual([]);
    expect(await getJob(b, user, jobId)).toBe(404);
    const gone = await timeUntil(async () => (await list(a, user)).length === 0 && (await getJob(a, user, jobId)) === 404);
    console.log(`a job deleted on replica B was gone from replica A's cached list and job after ${gone.toFixed(0)} ms`);
    expect(gone).toBeLessThan(1_000);
  });

  it("never answers a user with another user's jobs from memory", async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const aliceJob = await finishedJob(a, alice);
    const bobJob = await finishedJob(a, bob);
    for (let i = 0; i < 3; i++) {
      for (const r of [a, b]) {
        expect((await list(r, alice)).map((j) => j.job_id)).toEqual([aliceJob]);
        expect((await list(r, bob)).map((j) => j.job_id)).toEqual([bobJob]);
        // A kept job is the owner's only: another user gets 404, however often the owner asked.
        expect(await getJob(r, alice, aliceJob)).toBe(200);
        expect(await getJob(r, bob, aliceJob)).toBe(404);
      }
    }
  });

  it('serves nothing from memory while its runner is stopped, and again once it has caught up', async () => {
    const user = randomUUID();
    await list(b, user);
    await list(b, user);
    expect(b.job.cache.size.users).toBeGreaterThan(0);
    await b.stopRunner();
    expect(b.job.cache.size).toEqual({ users: 0, items: 0, jobs: 0 });
    // A job recorded meanwhile on A shows on B at once: B reads the store, keeps nothing.
    const jobId = await finishedJob(a, user);
    expect((await list(b, user)).map((j) => j.job_id)).toEqual([jobId]);
    expect(b.job.cache.size.users).toBe(0);
    b.startRunner();
    await live(b);
    await list(b, user);
    expect(b.job.cache.size.users).toBeGreaterThan(0);
  });

  it('stops serving from memory when PostgreSQL (its invalidation source) is gone, and caches again once it is back', async () => {
    const user = randomUUID();
    await list(b, user);
    expect(b.job.cache.size.users).toBeGreaterThan(0);
    pg.kill('SIGKILL');
    await pg.exited();
    try {
      // The runner cannot read the event store: within a few seconds the cache is not used (and emptied).
      await eventually(async () => (await list(b, user), b.job.cache.live === false && b.job.cache.size.users === 0 ? true : undefined), 15_000);
      await list(b, user);
      expect(b.job.cache.size.users).toBe(0);
    } finally {
      await pg.restart();
    }
    await live(b);
    await list(b, user);
    expect(b.job.cache.size.users).toBeGreaterThan(0);
  }, 120_000);
});

describe('the job read cache in the embedded run (SQLite)', () => {
  let dir: string;
  let infra: Infrastructure;
  let r: Replica;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-read-cache-sqlite-'));
    // The embedded run's stores: one SQLite file, personal data sealed (ADR 0025).
    infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
    r = await startReplica(infra.eventStore, infra.documents, dir);
    await live(r);
  }, 60_000);

  afterAll(async () => {
    await r?.close();
    await infra?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a job at once after its commands and after its deletion, though the list was kept in memory', async () => {
    const user = randomUUID();
    const other = randomUUID();
    expect(await list(r, user)).toEqual([]);
    expect(await list(r, user)).toEqual([]);
    expect(r.job.cache.size.users).toBeGreaterThan(0);
    const jobId = await finishedJob(r, user);
    expect((await list(r, user)).map((j) => [j.job_id, j.status])).toEqual([[jobId, 'done']]);
    expect(await list(r, other)).toEqual([]);
    expect(await getJob(r, other, jobId)).toBe(404);
    await r.job.remove(jobId, user);
    expect(await list(r, user)).toEqual([]);
    expect(await getJob(r, user, jobId)).toBe(404);
  });

  it('serves nothing from memory while its runner is stopped', async () => {
    const user = randomUUID();
    await list(r, user);
    await r.stopRunner();
    expect(r.job.cache.size).toEqual({ users: 0, items: 0, jobs: 0 });
    await list(r, user);
    expect(r.job.cache.size.users).toBe(0);
    r.startRunner();
    await live(r);
  });
});
