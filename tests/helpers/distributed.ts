/**
 * The distributed run on one machine: the engines installed by scripts/engines (PostgreSQL, Kafka,
 * FerretDB, MinIO) on free loopback ports, then every service as its own compiled process
 * (`node bin/baret.mjs <service>`), the gateway last. Used by the end-to-end test, the bench and
 * `npm run distributed`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ferretDbBinary,
  freePort,
  kafkaLibs,
  minioBinary,
  postgresBinDir,
  startFerretDb,
  startKafka,
  startMinio,
  startPostgres,
} from '@baret/platform/testing';
import { startService, type RunningBaret } from './process.js';

export const SERVICE_PROCESSES = ['identity', 'quota', 'job', 'analysis', 'notification'] as const;
/** A process of the stack: a service, an extra analysis worker ("analysis-2", …), or the gateway. */
export type StackProcess = (typeof SERVICE_PROCESSES)[number] | 'gateway' | `analysis-${number}`;

const repo = join(import.meta.dirname, '../..');

/** Whether every engine the distributed run needs here is installed. */
export const distributedEngines = () => ({
  PostgreSQL: postgresBinDir() !== null,
  'Kafka 4': kafkaLibs('4') !== null,
  FerretDB: ferretDbBinary() !== null,
  MinIO: minioBinary() !== null,
});

export interface StackOptions {
  /** Analysis workers (default 1). */
  workers?: number;
  /** The gateway's port (default: a free one). */
  gatewayPort?: number;
  /** Settings added to every service's environment. */
  env?: Record<string, string>;
  /** Every line a process writes, for a console that shows them. */
  onLine?: (process: StackProcess, line: string) => void;
  /** Also build the compiled services first (default true). */
  build?: boolean;
}

export interface DistributedStack {
  gateway: string;
  env: Record<string, string>;
  procs: Map<StackProcess, RunningBaret>;
  s3: { endPoint: string; accessKey: string; secretKey: string; bucket: string };
  engines: { postgres: string; kafka: string; mongodb: string; s3: string };
  start(name: StackProcess): Promise<RunningBaret>;
  stop(name: StackProcess, signal?: NodeJS.Signals): Promise<void>;
  close(): Promise<void>;
}

export async function startDistributedStack(options: StackOptions = {}): Promise<DistributedStack> {
  if (options.build !== false) execFileSync(process.execPath, [join(repo, 'scripts/build.mjs')], { stdio: 'ignore' });
  const cleanups: Array<() => Promise<void>> = [];
  const procs = new Map<StackProcess, RunningBaret>();
  const ports = new Map<StackProcess, number>();
  try {
    const [pg, kafka, mongo, minio] = await Promise.all([startPostgres(), startKafka('4'), startFerretDb(), startMinio()]);
    cleanups.push(pg.stop, kafka.stop, mongo.stop, minio.stop);
    const dataDir = mkdtempSync(join(tmpdir(), 'baret-distributed-'));
    mkdirSync(join(dataDir, 'tmp'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const workers = Array.from({ length: Math.max(1, options.workers ?? 1) }, (_, i): StackProcess => (i === 0 ? 'analysis' : `analysis-${i + 1}`));
    const names: StackProcess[] = [...SERVICE_PROCESSES, ...workers.slice(1), 'gateway'];
    for (const name of names) ports.set(name, name === 'gateway' && options.gatewayPort ? options.gatewayPort : await freePort());
    const url = (name: StackProcess) => `http://127.0.0.1:${ports.get(name)}`;
    const bucket = `baret-${Date.now().toString(36)}`;
    const env: Record<string, string> = {
      BARET_MODE: 'distributed',
      NODE_ENV: 'production',
      JWT_SECRET: 'local-distributed-jwt-secret-0123456789abcdef',
      SERVICE_SECRET: 'local-distributed-service-secret-0123456789',
      EVENT_STORE: 'postgres',
      POSTGRES_URL: pg.url,
      KAFKA_BROKERS: kafka.brokers.join(','),
      MONGODB_URL: mongo.url,
      MONGODB_DATABASE: 'baret',
      S3_ENDPOINT: minio.endPoint,
      S3_ACCESS_KEY: minio.accessKey,
      S3_SECRET_KEY: minio.secretKey,
      S3_BUCKET: bucket,
      IDENTITY_URL: url('identity'),
      QUOTA_URL: url('quota'),
      JOB_URL: url('job'),
      ANALYSIS_URL: url('analysis'),
      NOTIFICATION_URL: url('notification'),
      BARET_DATA_DIR: dataDir,
      ...options.env,
    };
    const start = async (name: StackProcess) => {
      const service = name.startsWith('analysis') ? 'analysis' : name;
      // Each process its own scratch folder: a worker's sweep at start must not empty another's.
      const scratch = join(dataDir, 'tmp', name);
      const p = await startService(service, { ...env, PORT: String(ports.get(name)), BARET_SCRATCH_DIR: scratch }, options.onLine && ((line) => options.onLine!(name, line)));
      procs.set(name, p);
      return p;
    };
    const stop = async (name: StackProcess, signal: NodeJS.Signals = 'SIGTERM') => {
      const p = procs.get(name);
      if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill(signal);
      await p.exited;
    };
    cleanups.push(async () => {
      await Promise.all([...procs.keys()].map((name) => stop(name)));
    });
    await Promise.all(names.filter((n) => n !== 'gateway').map(start));
    const gateway = (await start('gateway')).url;
    return {
      gateway,
      env,
      procs,
      s3: { endPoint: minio.endPoint, accessKey: minio.accessKey, secretKey: minio.secretKey, bucket },
      engines: { postgres: pg.version, kafka: kafka.version, mongodb: 'FerretDB', s3: 'MinIO' },
      start,
      stop,
      close: async () => {
        for (const c of cleanups.reverse()) await c().catch(() => undefined);
      },
    };
  } catch (e) {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    throw e;
  }
}
