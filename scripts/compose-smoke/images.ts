/**
 * The local images of the smoke runs on a machine without an image registry (podman, runc,
 * mmdebstrap): `npm run compose:smoke` (scripts/compose-smoke.ts) starts them with podman,
 * `npm run k8s:smoke` (scripts/k8s-smoke.ts) loads them into the cluster's containerd.
 *  - a Debian bookworm root file system made by mmdebstrap from Debian's packages, cached as a
 *    tarball in ~/.cache/baret-engines/compose-smoke (BARET_ENGINES_DIR), imported as the base image;
 *  - from it, local images of the engines (Containerfile beside this file): PostgreSQL from Debian,
 *    and Kafka, FerretDB and MinIO as `bash scripts/bootstrap.sh --test` installed them, plus the
 *    Node.js running this script, given to the Dockerfile as NODE_IMAGE and RUNTIME_IMAGE;
 *  - the Baret image from the Dockerfile.
 * Images and layers stay cached (podman's store), so a second run only checks them.
 */
import { execFileSync, spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const repo = join(import.meta.dirname, '..', '..');
const here = import.meta.dirname;
export const engines = process.env.BARET_ENGINES_DIR ?? join(homedir(), '.cache', 'baret-engines');
const cache = join(engines, 'compose-smoke');
let say = (text: string): void => void process.stdout.write(`${text}\n`);


// ---- processes -----------------------------------------------------------------------------------
/** Runs a command to completion, its output on ours; throws with its exit code. */
export function run(cmd: string, args: string[], options: SpawnOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repo, stdio: 'inherit', ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? signal}`))));
  });
}
/** A command's standard output, or null when it fails. */
export function output(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string | null {
  const r = spawnSync(cmd, args, { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return r.status === 0 ? r.stdout : null;
}
export const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Debian's packages in the base image: what the engines, the Dockerfile's build and its runtime need. */
const BASE_PACKAGES = ['ca-certificates', 'curl', 'ffmpeg', 'openjdk-17-jre-headless', 'postgresql', 'python3', 'make', 'g++', 'procps'];
const SUITE = 'bookworm';
const MIRROR = process.env.BARET_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

export function podmanEnv(dir: string): NodeJS.ProcessEnv {
  // This machine's podman: runc with cgroupfs (no systemd), and limits a container may set here
  // (without them runc fails: "error setting rlimit type 7: operation not permitted").
  const conf = join(dir, 'containers.conf');
  const text = ['[containers]', 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]', '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', ''].join('\n');
  execFileSync('sh', ['-c', `cat > "$1"`, 'sh', conf], { input: text });
  return { ...process.env, CONTAINERS_CONF: conf };
}

export async function baseImage(env: NodeJS.ProcessEnv): Promise<string> {
  const key = createHash('sha256').update([SUITE, MIRROR, ...BASE_PACKAGES].join('\n')).digest('hex').slice(0, 12);
  const image = `localhost/baret-smoke-debian:${key}`;
  if (output('podman', ['image', 'exists', image], env) !== null) return image;
  const tar = join(cache, `debian-${SUITE}-${key}.tar`);
  if (!existsSync(tar)) {
    mkdirSync(cache, { recursive: true });
    const part = `${tar}.part`;
    rmSync(part, { force: true });
    say(`mmdebstrap: Debian ${SUITE} with ${BASE_PACKAGES.join(', ')} → ${tar}`);
    const noDocs = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/locale/*'].flatMap((p) => ['--dpkgopt', `path-exclude=${p}`]);
    await run('mmdebstrap', ['--quiet', '--variant=apt', `--include=${BASE_PACKAGES.join(',')}`, ...noDocs, '--format=tar', SUITE, part, MIRROR]);
    renameSync(part, tar);
  }
  await run('podman', ['import', '--quiet', tar, image], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  return image;
}

/** Puts a file or folder into the build context: hard links where it can (fast, same content), else a copy. */
function place(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  rmSync(to, { recursive: true, force: true });
  if (spawnSync('cp', ['-al', from, to], { stdio: 'ignore' }).status !== 0) {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, preserveTimestamps: true, dereference: true });
  }
}

function buildContext(): string {
  const missing: string[] = [];
  const find = (prefix: string, file: string) => {
    const dir = existsSync(engines) ? execFileSync('ls', [engines]).toString().split('\n').find((d) => d.startsWith(prefix) && existsSync(join(engines, d, file))) : undefined;
    if (!dir) missing.push(prefix.replace(/-$/, ''));
    return dir ? join(engines, dir, file) : '';
  };
  const kafka = find('kafka-3.9.1', 'libs');
  const ferretdb = find('ferretdb-', 'ferretdb');
  const minio = find('minio-', 'minio');
  if (missing.length > 0) throw new Error(`not installed in ${engines}: ${missing.join(', ')}. Run: bash scripts/bootstrap.sh --test`);
  // The Node.js running this script, as an installation under /usr/local of the image.
  const prefix = dirname(dirname(process.execPath));
  // The certificate authorities this machine trusts, for npm in the image's build.
  const cas = [process.env.NODE_EXTRA_CA_CERTS, process.env.SSL_CERT_FILE, '/etc/ssl/certs/ca-certificates.crt'].find((f) => f && existsSync(f));
  if (!cas) throw new Error('no certificate authority bundle found (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE or /etc/ssl/certs/ca-certificates.crt)');
  const entries: Array<[string, string]> = [
    ...['Containerfile', 'postgres-entrypoint.sh', 'kafka-entrypoint.sh'].map((f): [string, string] => [join(here, f), f]),
    [kafka, 'kafka/libs'],
    [ferretdb, 'ferretdb'],
    [minio, 'minio'],
    [process.execPath, 'node/bin/node'],
    [join(prefix, 'include', 'node'), 'node/include/node'],
    [join(prefix, 'lib', 'node_modules', 'npm'), 'node/lib/node_modules/npm'],
    [cas, 'ca-certificates.crt'],
  ];
  // An entry is placed again only when its source changed: the build caches a COPY by what it
  // copies, folders' times included, so an untouched context keeps every layer (a fast second run).
  const ctx = join(cache, 'context');
  mkdirSync(ctx, { recursive: true });
  const stampsFile = join(ctx, '.sources.json');
  const stamps = (existsSync(stampsFile) ? JSON.parse(readFileSync(stampsFile, 'utf8')) : {}) as Record<string, string>;
  for (const [from, to] of entries) {
    const st = statSync(from);
    const manifest = join(from, 'package.json');
    const stamp = `${from} ${st.size} ${st.mtimeMs}${existsSync(manifest) ? ` ${statSync(manifest).mtimeMs}` : ''}`;
    if (stamps[to] === stamp && existsSync(join(ctx, to))) continue;
    place(from, join(ctx, to));
    stamps[to] = stamp;
  }
  writeFileSync(stampsFile, JSON.stringify(stamps, null, 2));
  return ctx;
}

/** The engine images (localhost/baret-smoke-<engine>:latest) and the Baret image `baretImage`, each a phase. */
export async function buildPodmanImages(
  env: NodeJS.ProcessEnv,
  baretImage: string,
  phase: <T>(name: string, work: () => Promise<T> | T, note?: () => string | undefined) => Promise<T>,
  log: (text: string) => void,
): Promise<void> {
  say = log;
  const base = await phase('base image (mmdebstrap, cached)', () => baseImage(env), () => 'Debian bookworm from Debian packages');
  const ctx = await phase('build context (engines, Node.js)', buildContext);
  await phase('engine and Node.js images', async () => {
    for (const target of ['node', 'postgres', 'kafka', 'ferretdb', 'minio']) {
      await run('podman', ['build', '--quiet', '--network', 'host', '--target', target, '--build-arg', `BASE=${base}`, '-t', `localhost/baret-smoke-${target}:latest`, '-f', join(ctx, 'Containerfile'), ctx], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  });
  await phase('Baret image (Dockerfile)', () =>
    run(
      'podman',
      ['build', '--format', 'docker', '--network', 'host', '--build-arg', 'NODE_IMAGE=localhost/baret-smoke-node:latest', '--build-arg', 'RUNTIME_IMAGE=localhost/baret-smoke-node:latest', '-t', baretImage, '-f', 'Dockerfile', '.'],
      { env },
    ),
  );
}
