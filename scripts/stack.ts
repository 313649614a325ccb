/**
 * The distributed run on one machine, supervised as Kubernetes would: the engines installed by
 * scripts/engines (PostgreSQL, Kafka, FerretDB, MinIO) on free loopback ports, then every service as
 * its own compiled process (`node bin/baret.mjs <service>`), the gateway last. A process or an
 * engine that dies is started again after a growing, jittered pause (same ports, same data). Used
 * by `npm run distributed`, the end-to-end and fault tests, and the bench.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backoffMs, pause } from '@baret/platform';
import {
  ferretDbBinary,
  kafkaLibs,
  minioBinary,
  postgresBinDir,
  releasePort,
  reservePort,
  startFerretDb,
  startKafka,
  startMinio,
  startPostgres,
  type RestartableEngine,
} from '@baret/platform/testing';

export const SERVICE_PROCESSES = ['identity', 'quota', 'job', 'analysis', 'notification'] as const;
/** A process of the stack: a service, an extra analysis worker ("analysis-2", …), or the gateway. */
export type StackProcess = (typeof SERVICE_PROCESSES)[number] | 'gateway' | `analysis-${number}`;
export const ENGINES = ['postgres', 'kafka', 'ferretdb', 'minio'] as const;
export type EngineName = (typeof ENGINES)[number];

const repo = join(import.meta.dirname, '..');

export interface RunningBaret {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Every JSON log line the process has written so far. */
  logs: Array<Record<string, unknown>>;
  /** The last lines it wrote to stderr. */
  stderr(): string;
}

/**
 * Starts a Baret process and resolves once it logs the address it listens on. Its JSON log lines
 * are kept (and its output drained until it closes).
 */
export function spawnBaret(args: string[], env: Record<string, string>, onLine?: (line: string) => void): Promise<RunningBaret> {
  const child = spawn(process.execPath, args, {
    cwd: repo,
    // MALLOC_ARENA_MAX as `npm start` and the image set it (docs/adr/0029): tests and benches run Baret as it ships.
    env: { MALLOC_ARENA_MAX: '2', ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-10_000);
      onLine?.(c.toString());
    });
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        onLine?.(line);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // not a log line
        }
        logs.push(entry);
        if (typeof entry.address === 'string') resolve({ child, url: entry.address, exited, logs, stderr: () => stderr });
      }
    });
    void exited.then((code) => reject(new Error(`${args.join(' ')} exited with ${String(code)} before listening: ${stderr}`)));
  });
}

/** Starts one compiled service of the distributed run (`node bin/baret.mjs <service>`; needs `npm run build:services`). */
export function startService(service: string, env: Record<string, string>, onLine?: (line: string) => void): Promise<RunningBaret> {
  return spawnBaret([join(repo, 'bin/baret.mjs'), service], env, onLine);
}

/** Whether every engine the distributed run needs here is installed. */
export const distributedEngines = () => ({
  PostgreSQL: postgresBinDir() !== null,
  'Kafka 4': kafkaLibs('4') !== null,
  FerretDB: ferretDbBinary() !== null,
  MinIO: minioBinary() !== null,
});

/** Why an engine did not come up, in one line: the error's first line and the server's own reason if it printed one. */
function whyNotUp(e: unknown): string {
  const lines = (e instanceof Error ? e.message : String(e)).split('\n').map((l) => l.trim()).filter(Boolean);
  const reason = lines.slice(1).find((l) => /(Exception|Error|FATAL|fatal)/.test(l) && !l.startsWith('at '));
  return [lines[0], reason].filter(Boolean).join(' — ').slice(0, 500);
}

/** What the supervisor did, for a console or a test. */
export type StackEvent =
  | { kind: 'started'; name: StackProcess | EngineName; pid: number | undefined; restart: number }
  | { kind: 'died'; name: StackProcess | EngineName; code: number | null; retryInMs: number }
  | { kind: 'restart-failed'; name: StackProcess | EngineName; error: string; retryInMs: number };

export interface StackOptions {
  /** Analysis workers (default 1). */
  workers?: number;
  /** The gateway's port (default: a free one). */
  gatewayPort?: number;
  /** Settings added to every service's environment. */
  env?: Record<string, string>;
  /** Every line a process writes, for a console that shows them. */
  onLine?: (process: StackProcess, line: string) => void;
  /** Starts, deaths and restarts of processes and engines. */
  onEvent?: (event: StackEvent) => void;
  /** Also build the compiled services first (default true). */
  build?: boolean;
  /** Keep every engine's and service's data here, across runs (kept at close); default a temp folder removed at close. */
  dataDir?: string;
  /** Start a process or an engine that died again (default true). */
  supervise?: boolean;
  /** Also append every line each process writes to `<logDir>/<process>.log`. */
  logDir?: string;
}

export interface EngineInfo {
  name: EngineName;
  /** What to connect to. */
  address: string;
  version: string;
  pid(): number | undefined;
}

export interface DistributedStack {
  gateway: string;
  env: Record<string, string>;
  /** Where the services' environment is written (KEY=VALUE lines; `npm run admin -- --env FILE …` reads it). */
  envFile: string;
  dataDir: string;
  procs: Map<StackProcess, RunningBaret>;
  s3: { endPoint: string; accessKey: string; secretKey: string; bucket: string };
  engines: { postgres: string; kafka: string; mongodb: string; s3: string };
  engineInfo: EngineInfo[];
  start(name: StackProcess): Promise<RunningBaret>;
  /** Stops a process (it stays stopped until `start`). */
  stop(name: StackProcess, signal?: NodeJS.Signals): Promise<void>;
  /** Kills an engine with SIGKILL, as a crash would; the supervisor brings it back unless `hold` is set. */
  killEngine(name: EngineName, options?: { hold?: boolean }): Promise<void>;
  /** Starts a held engine again. */
  releaseEngine(name: EngineName): Promise<void>;
  close(): Promise<void>;
}

/** Secrets generated once per data folder, so tokens stay valid across runs that keep the data. */
function secretsOf(dataDir: string, keep: boolean): { jwt: string; service: string } {
  const file = join(dataDir, 'secrets.json');
  if (keep && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { jwt: string; service: string };
  const secrets = { jwt: randomBytes(32).toString('hex'), service: randomBytes(32).toString('hex') };
  if (keep) writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

export async function startDistributedStack(options: StackOptions = {}): Promise<DistributedStack> {
  if (options.build !== false) execFileSync(process.execPath, [join(repo, 'scripts/build.mjs')], { stdio: 'ignore' });
  const supervise = options.supervise !== false;
  const keep = options.dataDir !== undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'baret-distributed-'));
  mkdirSync(dataDir, { recursive: true });
  const at = (sub: string) => (keep ? join(dataDir, sub) : undefined);
  const cleanups: Array<() => Promise<void>> = [];
  const procs = new Map<StackProcess, RunningBaret>();
  const ports = new Map<StackProcess, number>();
  let closing = false;
  const emit = (e: StackEvent) => options.onEvent?.(e);
  try {
    const [pg, kafka, mongo, minio] = await Promise.all([
      startPostgres({ dataDir: at('postgres') }),
      startKafka('4', { dataDir: at('kafka') }),
      startFerretDb({ dataDir: at('ferretdb') }),
      startMinio({ dataDir: at('minio') }),
    ]);
    const engines: Record<EngineName, RestartableEngine> = { postgres: pg, kafka, ferretdb: mongo, minio };
    cleanups.push(pg.stop, kafka.stop, mongo.stop, minio.stop);
    const held = new Set<EngineName>();
    const restarts = new Map<string, number>();

    // An engine that dies is started again (same port, same data) after a growing, jittered pause.
    const watchEngine = (name: EngineName) => {
      const engine = engines[name];
      void engine.exited().then(async () => {
        if (closing || !supervise) return;
        let failure = 'not up yet';
        for (let attempt = 0; !closing && !held.has(name); attempt++) {
          const wait = backoffMs(attempt, 500, 15_000);
          emit(attempt === 0 ? { kind: 'died', name, code: null, retryInMs: wait } : { kind: 'restart-failed', name, error: failure, retryInMs: wait });
          await pause(wait);
          if (closing || held.has(name)) return;
          try {
            await engine.restart();
            const n = (restarts.get(name) ?? 0) + 1;
            restarts.set(name, n);
            emit({ kind: 'started', name, pid: engine.pid(), restart: n });
            watchEngine(name);
            return;
          } catch (e) {
            // Tried again below; the operator (and a failing test) sees why it did not come up.
            failure = whyNotUp(e);
          }
        }
      });
    };
    for (const name of ENGINES) {
      emit({ kind: 'started', name, pid: engines[name].pid(), restart: 0 });
      watchEngine(name);
    }

    const servicesDir = join(dataDir, 'services');
    mkdirSync(join(servicesDir, 'tmp'), { recursive: true });
    if (!keep) cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const workers = Array.from({ length: Math.max(1, options.workers ?? 1) }, (_, i): StackProcess => (i === 0 ? 'analysis' : `analysis-${i + 1}`));
    const names: StackProcess[] = [...SERVICE_PROCESSES, ...workers.slice(1), 'gateway'];
    // Reserved ports (below the ephemeral range, locked across processes): a process started again
    // after a crash finds its port free, even with another run on the machine.
    for (const name of names) {
      if (name === 'gateway' && options.gatewayPort) ports.set(name, options.gatewayPort);
      else {
        const port = await reservePort();
        ports.set(name, port);
        cleanups.push(async () => releasePort(port));
      }
    }
    const url = (name: StackProcess) => `http://127.0.0.1:${ports.get(name)}`;
    const bucket = keep ? 'baret' : `baret-${Date.now().toString(36)}`;
    const secrets = secretsOf(dataDir, keep);
    const env: Record<string, string> = {
      BARET_MODE: 'distributed',
      NODE_ENV: 'production',
      JWT_SECRET: secrets.jwt,
      SERVICE_SECRET: secrets.service,
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
      BARET_DATA_DIR: servicesDir,
      ...options.env,
    };
    const envFile = join(dataDir, 'services.env');
    writeFileSync(envFile, `${Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n')}\n`, { mode: 0o600 });

    /** Processes stopped on purpose (stop, close): not started again by the supervisor. */
    const stopped = new Set<StackProcess>();
    if (options.logDir) mkdirSync(options.logDir, { recursive: true });
    const onLine = (name: StackProcess) => (line: string) => {
      if (options.logDir) appendFileSync(join(options.logDir, `${name}.log`), line.endsWith('\n') ? line : `${line}\n`);
      options.onLine?.(name, line);
    };
    const launch = async (name: StackProcess) => {
      const service = name.startsWith('analysis') ? 'analysis' : name;
      // Each process its own scratch folder: a worker's sweep at start must not empty another's.
      const scratch = join(servicesDir, 'tmp', name);
      const p = await startService(service, { ...env, PORT: String(ports.get(name)), BARET_SCRATCH_DIR: scratch }, onLine(name));
      procs.set(name, p);
      emit({ kind: 'started', name, pid: p.child.pid, restart: restarts.get(name) ?? 0 });
      // A process that dies (an exit, a crash) is started again, as a Deployment's pod would be.
      void p.exited.then(async (code) => {
        for (let attempt = 0; supervise && !closing && !stopped.has(name) && procs.get(name) === p; attempt++) {
          const wait = backoffMs(attempt, 500, 15_000);
          emit(attempt === 0 ? { kind: 'died', name, code, retryInMs: wait } : { kind: 'restart-failed', name, error: 'exited at start', retryInMs: wait });
          await pause(wait);
          if (closing || stopped.has(name) || procs.get(name) !== p) return;
          try {
            restarts.set(name, (restarts.get(name) ?? 0) + 1);
            await launch(name);
            return;
          } catch {
            // it exited before listening: tried again
          }
        }
      });
      return p;
    };
    const start = async (name: StackProcess) => {
      stopped.delete(name);
      return launch(name);
    };
    const stop = async (name: StackProcess, signal: NodeJS.Signals = 'SIGTERM') => {
      stopped.add(name);
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
      envFile,
      dataDir,
      procs,
      s3: { endPoint: minio.endPoint, accessKey: minio.accessKey, secretKey: minio.secretKey, bucket },
      engines: { postgres: pg.version, kafka: kafka.version, mongodb: 'FerretDB', s3: 'MinIO' },
      engineInfo: [
        { name: 'postgres', address: pg.url, version: pg.version, pid: pg.pid },
        { name: 'kafka', address: kafka.brokers.join(','), version: `Kafka ${kafka.version}`, pid: kafka.pid },
        { name: 'ferretdb', address: mongo.url, version: 'FerretDB (MongoDB wire protocol)', pid: mongo.pid },
        { name: 'minio', address: minio.endPoint, version: 'MinIO (S3)', pid: minio.pid },
      ],
      start,
      stop,
      killEngine: async (name, opts = {}) => {
        if (opts.hold) held.add(name);
        const engine = engines[name];
        const gone = engine.exited();
        engine.kill('SIGKILL');
        await gone;
      },
      releaseEngine: async (name) => {
        held.delete(name);
        await engines[name].restart();
        restarts.set(name, (restarts.get(name) ?? 0) + 1);
        emit({ kind: 'started', name, pid: engines[name].pid(), restart: restarts.get(name)! });
        watchEngine(name);
      },
      close: async () => {
        closing = true;
        for (const c of cleanups.reverse()) await c().catch(() => undefined);
      },
    };
  } catch (e) {
    closing = true;
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    throw e;
  }
}
