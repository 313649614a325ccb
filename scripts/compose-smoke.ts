/**
 * `npm run compose:smoke`: docker-compose.yml started for real (issue 27). Builds the images, starts
 * the compose file with its engines, waits until the gateway is ready, registers and logs in, runs
 * ONE analysis of a small clip through the gateway to completion, checks the result, and tears
 * everything down (volumes too), also when a step fails or on Ctrl-C. Prints the time of each phase.
 *
 * Where a Docker daemon answers (`docker info`), it runs `docker compose` on docker-compose.yml as it
 * is, with the official images. Otherwise it runs podman (Debian's podman, runc, mmdebstrap) on a
 * machine without an image registry or container network:
 *  - a Debian bookworm root file system made by mmdebstrap from Debian's packages, cached as a
 *    tarball in ~/.cache/baret-engines/compose-smoke (BARET_ENGINES_DIR), imported as the base image;
 *  - from it, local images of the engines (scripts/compose-smoke/Containerfile): PostgreSQL from
 *    Debian, and Kafka, FerretDB and MinIO as `bash scripts/bootstrap.sh --test` installed them, plus
 *    the Node.js running this script, given to the Dockerfile as NODE_IMAGE and RUNTIME_IMAGE;
 *  - docker-compose.yml with docker-compose.local-images.yml on top (the host's network, loopback
 *    addresses, a free port for each process, never 47000–47999, used by other test runs), merged
 *    and started by this script as Compose would (podmanStart says why not by podman-compose).
 * Images and layers stay cached (podman's store), so a second run only starts and checks.
 *
 *   npm run compose:smoke                  docker if its daemon answers, else podman
 *   npm run compose:smoke -- --podman      podman even where docker answers
 *   npm run compose:smoke -- --keep        leave the stack running after a successful check (prints how to stop it)
 */
import { spawnSync, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interpolateAll, mergedComposeFile, startOrder } from './compose-smoke/compose-files.js';
import { buildPodmanImages, has, output, podmanEnv, run } from './compose-smoke/images.js';
import { api, expect, type Job, makeClip, phases, sleep } from './compose-smoke/kit.js';

const repo = join(import.meta.dirname, '..');
const project = 'baret-smoke';
const keep = process.argv.includes('--keep');

const { say, phase, printTimings } = phases('compose:smoke');

// ---- ports ---------------------------------------------------------------------------------------
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
async function anyPort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    if (port < 47000 || port > 47999) return port;
  }
}
/** The compose file's port where it is free, else a free one; none twice. */
async function choosePorts(defaults: Record<string, number>): Promise<Record<string, number>> {
  const chosen: Record<string, number> = {};
  const taken = new Set<number>();
  for (const [name, port] of Object.entries(defaults)) {
    let p = port;
    while (taken.has(p) || !(await portFree(p))) p = await anyPort();
    taken.add(p);
    chosen[name] = p;
  }
  return chosen;
}

// ---- the check through the gateway ---------------------------------------------------------------
async function waitReady(gateway: string, timeoutMs: number, dead: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    try {
      const res = await fetch(`${gateway}/readyz`, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
      last = `${res.status} ${(await res.text()).slice(0, 300)}`;
    } catch (e) {
      last = (e as Error).message;
    }
    const gone = dead();
    if (gone) throw new Error(`a container stopped while starting: ${gone}`);
    if (Date.now() > deadline) throw new Error(`the gateway was not ready within ${timeoutMs / 1000} s: ${last}`);
    await sleep(2000);
  }
}

async function analyseOnce(gateway: string, clip: Buffer): Promise<string> {
  const email = `smoke-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'correct horse battery staple';
  const reg = await api<{ id: string }>(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password }) });
  expect(reg.status === 201, 'POST /auth/register', reg);
  const login = await api<{ access_token: string }>(gateway, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) });
  expect(login.status === 200 && typeof login.body.access_token === 'string', 'POST /auth/login', login);
  const token = login.body.access_token;

  const form = new FormData();
  form.append('payload', JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 2, frames_per_composite: 2 }));
  form.append('file', new Blob([clip], { type: 'video/mp4' }), 'smoke.mp4');
  const submitted = await api<{ job_id: string }>(gateway, '/analyze', { method: 'POST', body: form, token });
  expect(submitted.status === 202 && typeof submitted.body.job_id === 'string', 'POST /analyze', submitted);
  const id = submitted.body.job_id;
  say(`job ${id} accepted; waiting for it to finish`);

  const deadline = Date.now() + 5 * 60_000;
  let job: Job;
  for (;;) {
    const res = await api<Job>(gateway, `/jobs/${id}`, { token, headers: { 'accept-language': 'en' } });
    expect(res.status === 200, `GET /jobs/${id}`, res);
    job = res.body;
    if (['done', 'error', 'cancelled'].includes(job.status)) break;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after 5 min: ${job.logs.map((l) => l.event).join(', ')}`);
    await sleep(1000);
  }
  expect(job.status === 'done', `job ${id} ended ${job.status}`, job.error ?? job.logs.map((l) => l.event));
  const events = job.logs.map((l) => l.event);
  for (const e of ['job_queued', 'job_started', 'frames_sampled', 'composites_created', 'composite_analyzed', 'job_completed']) expect(events.includes(e), `job ${id} has no ${e} event`, events);
  const result = job.result ?? {};
  for (const k of ['job_type', 'required_groups', 'missing_groups', 'composites_processed', 'model_used', 'evidence']) expect(k in result, `the result of job ${id} has no ${k}`, Object.keys(result));
  expect(Number(result.composites_processed) > 0, `job ${id} processed no composite`, result.composites_processed);
  const me = await api<{ quota: { lifetime_used: number } }>(gateway, '/auth/me', { token });
  expect(me.status === 200 && me.body.quota.lifetime_used === 1, 'GET /auth/me after one analysis: lifetime_used 1', me.body);
  return `job ${id}: done, ${String(result.composites_processed)} composites by ${String(result.model_used)}, missing ${JSON.stringify(result.missing_groups)}`;
}

// ---- main ----------------------------------------------------------------------------------------
const dockerWorks = !process.argv.includes('--podman') && has('docker') && output('docker', ['info', '--format', '{{.ServerVersion}}']) !== null;
const engine = dockerWorks ? 'docker' : 'podman';
if (!dockerWorks) {
  const lacking = ['podman', 'runc', 'mmdebstrap'].filter((c) => !has(c));
  if (lacking.length > 0) {
    process.stderr.write(`No Docker daemon answers and ${lacking.join(', ')} ${lacking.length > 1 ? 'are' : 'is'} missing: apt-get install -y podman runc mmdebstrap\n`);
    process.exit(2);
  }
}
if (!has('ffmpeg')) {
  process.stderr.write('ffmpeg makes the test clip: apt-get install -y ffmpeg\n');
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'baret-compose-smoke-'));
const ports = await choosePorts({
  BARET_PORT: 8080,
  BARET_LOCAL_IDENTITY_PORT: 8081,
  BARET_LOCAL_QUOTA_PORT: 8082,
  BARET_LOCAL_JOB_PORT: 8083,
  BARET_LOCAL_ANALYSIS_PORT: 8084,
  BARET_LOCAL_NOTIFICATION_PORT: 8085,
  BARET_LOCAL_POSTGRES_PORT: 5432,
  BARET_LOCAL_KAFKA_PORT: 9092,
  BARET_LOCAL_KAFKA_CONTROLLER_PORT: 9093,
  BARET_LOCAL_MONGODB_PORT: 27017,
  BARET_LOCAL_MINIO_PORT: 9000,
  BARET_LOCAL_MINIO_CONSOLE_PORT: 9001,
});
const secret = (bytes: number) => randomBytes(bytes).toString('hex');
const env: NodeJS.ProcessEnv = {
  ...(engine === 'podman' ? podmanEnv(scratch) : process.env),
  ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  BARET_IMAGE: 'localhost/baret:smoke',
  JWT_SECRET: secret(32),
  SERVICE_SECRET: secret(32),
  S3_SECRET_KEY: secret(20),
  POSTGRES_PASSWORD: secret(20),
  LOG_LEVEL: 'warn',
};
const gateway = `http://127.0.0.1:${ports.BARET_PORT}`;
/** docker compose (where Docker answers). */
const compose = (args: string[], options: SpawnOptions = {}) => run('docker', ['compose', '-p', project, '-f', 'docker-compose.yml', ...args], { env, ...options });

interface Service {
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  restart?: string;
  init?: boolean;
  network_mode?: string;
  healthcheck?: { test?: string[] | string };
}
const label = [`--label`, `com.docker.compose.project=${project}`];
const containerName = (service: string) => `${project}_${service}_1`;

/**
 * Starts one service of the merged compose file with podman, as Compose would: its named volumes
 * (created once, labelled with the project), environment, command, restart policy, init and network
 * mode. podman-compose 1.0 (Debian 12) cannot run these files: with `network_mode: host` it still adds
 * `--net <project>_default` ("cannot set multiple networks without bridge network mode, selected mode
 * host"), it appends an override's command and healthcheck to the base's, and it starts every service
 * at once whatever `depends_on` says.
 */
async function podmanStart(name: string, s: Service, volumes: Set<string>): Promise<void> {
  const args = ['run', '-d', '--name', containerName(name), ...label, '--label', `com.docker.compose.service=${name}`];
  if (s.network_mode) args.push('--network', s.network_mode);
  if (s.restart) args.push('--restart', s.restart);
  if (s.init) args.push('--init');
  // The compose healthcheck runs from waitHealthy; podman's own scheduling needs systemd, absent here
  // ("unable to get systemd connection to add healthchecks" on every start).
  args.push('--no-healthcheck');
  for (const [k, v] of Object.entries(s.environment ?? {})) args.push('-e', `${k}=${v}`);
  for (const v of s.volumes ?? []) {
    const [source, target] = v.split(':');
    if (volumes.has(source!)) {
      const volume = `${project}_${source}`;
      if (output('podman', ['volume', 'exists', volume], env) === null) await run('podman', ['volume', 'create', ...label, volume], { env, stdio: 'ignore' });
      args.push('-v', `${volume}:${target}`);
    } else args.push('-v', v);
  }
  args.push(s.image, ...(s.command ?? []));
  await run('podman', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Waits until each service passes its compose healthcheck, run in its container (podman runs them only when asked: no systemd here). */
async function waitHealthy(services: Record<string, Service>, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(names);
  const stopped = new Map<string, number>();
  while (pending.size > 0) {
    for (const name of [...pending]) {
      const container = containerName(name);
      const state = output('podman', ['inspect', '--format', '{{.State.Status}}', container], env)?.trim();
      if (state !== 'running') {
        // restart: unless-stopped brings a crashed process back; one that stays down fails the run
        const since = stopped.get(name) ?? Date.now();
        stopped.set(name, since);
        if (Date.now() - since > 15_000) throw new Error(`${container} is ${state ?? 'gone'}:\n${(output('podman', ['logs', '--tail', '40', container], env) ?? '').trim()}`);
        continue;
      }
      stopped.delete(name);
      const test = services[name]!.healthcheck?.test;
      const argv = !test || test[0] === 'NONE' ? null : typeof test === 'string' ? ['sh', '-c', test] : test[0] === 'CMD-SHELL' ? ['sh', '-c', test[1]!] : test.slice(1);
      if (!argv || spawnSync('podman', ['exec', container, ...argv], { env, stdio: 'ignore', timeout: 30_000 }).status === 0) pending.delete(name);
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) throw new Error(`not healthy within ${timeoutMs / 1000} s: ${[...pending].join(', ')}`);
    await sleep(2000);
  }
}

/** The project's containers that stopped, with the end of their logs; null while all run. */
function deadContainers(): string | null {
  const names = output(engine, ['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--filter', 'status=exited', '--format', '{{.Names}}'], env)?.trim();
  if (!names) return null;
  return names
    .split('\n')
    .map((n) => `${n}:\n${(output(engine, ['logs', '--tail', '30', n], env) ?? '').trim()}`)
    .join('\n');
}
function printLogs(): void {
  const names = output(engine, ['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'], env)?.trim();
  for (const n of names ? names.split('\n') : []) {
    const r = spawnSync(engine, ['logs', '--tail', '40', n], { env, encoding: 'utf8' });
    process.stdout.write(`\n---- ${n} (last 40 lines) ----\n${r.stdout}${r.stderr}`);
  }
}

/** The project's containers and volumes, by label. */
async function removeLeftovers(): Promise<void> {
  const list = (what: string[]) => output(engine, [...what, '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'], env)?.trim().split('\n').filter(Boolean) ?? [];
  const containers = list(['ps', '-a']);
  if (containers.length > 0) await run(engine, ['rm', '-f', '-t', '5', ...containers], { env, stdio: 'ignore' }).catch(() => undefined);
  const volumes = output(engine, ['volume', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}'], env)?.trim().split('\n').filter(Boolean) ?? [];
  if (volumes.length > 0) await run(engine, ['volume', 'rm', '-f', ...volumes], { env, stdio: 'ignore' }).catch(() => undefined);
  const networks = output(engine, ['network', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}'], env)?.trim().split('\n').filter(Boolean) ?? [];
  if (networks.length > 0) await run(engine, ['network', 'rm', '-f', ...networks], { env, stdio: 'ignore' }).catch(() => undefined);
}

let tornDown = false;
async function teardown(): Promise<void> {
  if (tornDown) return;
  tornDown = true;
  await phase('tear down (containers, volumes)', async () => {
    if (engine === 'docker') await compose(['down', '-v'], { stdio: 'ignore' }).catch((e: unknown) => say(`down: ${(e as Error).message}`));
    await removeLeftovers();
    const left = [
      ...(output(engine, ['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'], env)?.trim().split('\n') ?? []),
      ...(output(engine, ['volume', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}'], env)?.trim().split('\n') ?? []),
    ].filter(Boolean);
    if (left.length > 0) {
      say(`left after tear down: ${left.join(', ')}`);
      process.exitCode = 1;
    }
  });
  rmSync(scratch, { recursive: true, force: true });
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    say(`${signal}: tearing down`);
    void teardown().then(() => process.exit(130));
  });
}

say(`${engine}; gateway on ${gateway}; ports ${JSON.stringify(ports)}`);
let summary = '';
try {
  // Whatever an earlier, interrupted run left behind.
  await removeLeftovers();
  if (engine === 'podman') {
    await buildPodmanImages(env, env.BARET_IMAGE!, phase, say);
    // docker-compose.yml with docker-compose.local-images.yml on top, merged and interpolated as
    // Compose does; depends_on (service_healthy) honoured: a group starts once the groups before it
    // pass their healthchecks. The gateway's published port needs no mapping on the host network.
    const merged = mergedComposeFile(repo, ['docker-compose.yml', 'docker-compose.local-images.yml'], scratch);
    const doc = interpolateAll(JSON.parse(readFileSync(merged.file, 'utf8')) as { services: Record<string, Service>; volumes?: Record<string, unknown> }, env);
    const volumes = new Set(Object.keys(doc.volumes ?? {}));
    for (const group of startOrder(merged.services)) {
      await phase(`up and healthy: ${group.join(', ')}`, async () => {
        for (const name of group) await podmanStart(name, doc.services[name]!, volumes);
        await waitHealthy(doc.services, group, 5 * 60_000);
      });
    }
  } else {
    await phase('images (docker compose build)', () => compose(['build']));
    await phase('compose up', () => compose(['up', '-d', '--wait', '--wait-timeout', '600']));
  }
  await phase('ready (gateway /readyz)', () => waitReady(gateway, 5 * 60_000, deadContainers));
  const clip = makeClip(scratch);
  summary = await phase('register, log in, one analysis', () => analyseOnce(gateway, clip));
  say(summary);
  if (keep) {
    process.stdout.write(
      `\nThe stack keeps running on ${gateway}. Stop it with:\n  ${engine === 'podman' ? `podman rm -f $(podman ps -aq --filter label=com.docker.compose.project=${project}) && podman volume prune -f --filter label=com.docker.compose.project=${project}` : `docker compose -p ${project} down -v`}\n`,
    );
    tornDown = true;
  }
} catch (e) {
  process.stdout.write(`\ncompose:smoke FAILED: ${(e as Error).message}\n`);
  printLogs();
  process.exitCode = 1;
} finally {
  if (!interrupted) await teardown();
}
if (!interrupted) printTimings(process.exitCode === 1 ? 'FAILED' : `passed (${engine})`);
