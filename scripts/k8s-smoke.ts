/**
 * `npm run k8s:smoke` (issue 41): the Helm chart installed on a real one-node Kubernetes cluster on
 * this machine, a job run through it, faults, and everything torn down. Prints the time of each phase.
 *
 * On the host (as root):
 *  - Kubernetes v1.34.4 (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy,
 *    kubectl) built from the Go module proxy by scripts/k8s-smoke/build-kube.sh, cached in
 *    BARET_ENGINES_DIR/kubernetes-v1.34.4; etcd, containerd, runc and the CNI plugins from Debian;
 *  - the images as `npm run compose:smoke` builds them (podman, mmdebstrap; scripts/compose-smoke/
 *    images.ts) and a pause image, saved to one archive (cached by the images' ids).
 * Then this script runs again inside new network, mount and PID namespaces (unshare), where the
 * cluster lives (scripts/k8s-smoke/node.ts): loopback, the node's address on a veth interface, the
 * pods' bridge, and no link out, so no traffic leaves the namespace. There it
 *  - starts the control plane, containerd, imports the images, the kubelet, kube-proxy and the DNS;
 *  - makes the storage classes of the production values (fast-ssd, standard) as local volumes,
 *    the namespace with Pod Security "restricted" enforced, and labels the node workload=video;
 *  - `helm install`s charts/baret with charts/baret/ci/production-values.yaml and
 *    scripts/k8s-smoke/values.yaml on top, waits until every workload is Ready;
 *  - through the gateway's Service (its ClusterIP, kube-proxy's rules): register, log in, create an
 *    API key, POST /analyze with the key → done, result JSON and PDF report;
 *  - faults: the analysis pod deleted mid-job (done once, charged once); the PostgreSQL pod deleted
 *    under load (200 or 503, never 500, recovery without an operator); `helm upgrade` with a changed
 *    value while a client polls GET /jobs (no failed request); `helm uninstall` (the PVCs and the
 *    Secret stay, as the chart's README says);
 *  - stops every process. When the namespaces' first process ends, the kernel ends whatever is left
 *    in them (processes, mounts, interfaces, iptables rules); the host then removes the kubelet's
 *    cgroups and the run's scratch folder, and checks that nothing is left.
 *
 *   sudo npm run k8s:smoke               the whole run
 *   npm run k8s:smoke -- --keep-logs     keep the components' logs (printed path) after the run
 *   npm run k8s:smoke -- --hold          at the end (passed or failed), keep the cluster up (at most
 *                                        30 min) for a look inside (the printed nsenter and kubectl
 *                                        commands), then tear down
 *   BARET_K8S_SMOKE_SET=k=v npm run k8s:smoke   helm --set k=v on top of the values (install and upgrade)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPodmanImages, engines, has, output, podmanEnv, run } from './compose-smoke/images.js';
import { phases, type Timing } from './compose-smoke/kit.js';
import { CGROUP_ROOT, PAUSE_IMAGE } from './k8s-smoke/node.js';

const repo = join(import.meta.dirname, '..');
const here = join(import.meta.dirname, 'k8s-smoke');
const KUBERNETES_VERSION = 'v1.34.4';
const bin = join(engines, `kubernetes-${KUBERNETES_VERSION}`, 'bin');
const cache = join(engines, 'k8s-smoke');
const BARET_IMAGE = 'localhost/baret:smoke';
const ENGINE_IMAGES = ['postgres', 'kafka', 'ferretdb', 'minio'];

if (process.argv[2] === '--inside') {
  const { inside } = await import('./k8s-smoke/inside.js');
  await inside(JSON.parse(process.argv[3]!) as { scratch: string; archive: string; bin: string; hold: boolean });
} else {
  await outside();
}

/** The cgroups the kubelet made (all of them under CGROUP_ROOT in each hierarchy), deepest first. */
function removeCgroups(): string[] {
  const left: string[] = [];
  const root = '/sys/fs/cgroup';
  for (const hierarchy of existsSync(root) ? readdirSync(root) : []) {
    const top = join(root, hierarchy, CGROUP_ROOT);
    if (!existsSync(top)) continue;
    const dirs = execFileSync('find', [top, '-depth', '-type', 'd'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    for (const d of dirs) {
      for (let i = 0; i < 10; i++) {
        if (spawnSync('rmdir', [d], { stdio: 'ignore' }).status === 0 || !existsSync(d)) break;
        execFileSync('sleep', ['0.5']);
      }
      if (existsSync(d)) left.push(d);
    }
  }
  return left;
}

async function outside(): Promise<void> {
  const { say, phase, printTimings } = phases('k8s:smoke');
  if (process.getuid?.() !== 0) {
    process.stderr.write('k8s:smoke starts a Kubernetes node: run it as root (sudo npm run k8s:smoke)\n');
    process.exit(2);
  }
  const needs: Record<string, string> = {
    go: 'the Go toolchain (builds Kubernetes)',
    etcd: 'apt-get install -y etcd-server',
    containerd: 'apt-get install -y containerd',
    ctr: 'apt-get install -y containerd',
    runc: 'apt-get install -y runc',
    iptables: 'apt-get install -y iptables',
    conntrack: 'apt-get install -y conntrack',
    podman: 'apt-get install -y podman',
    mmdebstrap: 'apt-get install -y mmdebstrap',
    ffmpeg: 'apt-get install -y ffmpeg',
    openssl: 'apt-get install -y openssl',
    unshare: 'apt-get install -y util-linux',
  };
  const lacking = Object.entries(needs).filter(([c]) => !has(c));
  if (!existsSync('/usr/lib/cni/bridge')) lacking.push(['/usr/lib/cni/bridge', 'apt-get install -y containernetworking-plugins']);
  const helm = join(engines, 'bin', 'helm');
  if (!existsSync(helm)) lacking.push([helm, 'bash scripts/bootstrap.sh --test (installs helm)']);
  if (lacking.length > 0) {
    process.stderr.write(`k8s:smoke needs:\n${lacking.map(([c, how]) => `  ${c}: ${how}`).join('\n')}\n`);
    process.exit(2);
  }
  // Whatever an interrupted run left (the namespaces are gone with their processes; cgroups stay).
  removeCgroups();

  // The kernel-wide settings the kubelet would change (node.ts shadows them): the same after the run.
  const kernelSettings = () => ['vm/overcommit_memory', 'vm/panic_on_oom', 'kernel/panic', 'kernel/panic_on_oops'].map((k) => `${k}=${readFileSync(`/proc/sys/${k}`, 'utf8').trim()}`).join(' ');
  const settingsBefore = kernelSettings();
  const keepLogs = process.argv.includes('--keep-logs');
  const scratch = mkdtempSync(join(tmpdir(), 'baret-k8s-smoke-'));
  const env = podmanEnv(scratch);
  let inner: Timing[] = [];
  let closing = '';
  try {
    await phase(`Kubernetes ${KUBERNETES_VERSION} binaries (go build, cached)`, () => run('bash', [join(here, 'build-kube.sh'), bin, KUBERNETES_VERSION]));
    await buildPodmanImages(env, BARET_IMAGE, phase, say);
    await phase('pause image', async () => {
      if (output('podman', ['image', 'exists', PAUSE_IMAGE], env) !== null) return;
      const ctx = join(scratch, 'pause');
      mkdirSync(ctx);
      await run('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', join(ctx, 'pause'), './pause'], { cwd: join(here, 'kube'), env: { ...process.env, CGO_ENABLED: '0' } });
      await run('podman', ['build', '--quiet', '-t', PAUSE_IMAGE, '-f', join(here, 'Containerfile.pause'), ctx], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    });
    const archive = await phase('image archive (podman save, cached by image ids)', async () => {
      // The engines' images get a tag other than latest: for :latest the kubelet would always pull.
      for (const e of ENGINE_IMAGES) await run('podman', ['tag', `localhost/baret-smoke-${e}:latest`, `localhost/baret-smoke-${e}:smoke`], { env });
      const images = [BARET_IMAGE, PAUSE_IMAGE, ...ENGINE_IMAGES.map((e) => `localhost/baret-smoke-${e}:smoke`)];
      const ids = images.map((i) => output('podman', ['image', 'inspect', '--format', '{{.Id}}', i], env)?.trim() ?? '');
      const key = createHash('sha256').update(images.map((i, n) => `${i}=${ids[n]}`).join('\n')).digest('hex').slice(0, 16);
      const file = join(cache, `images-${key}.tar`);
      if (existsSync(file)) return file;
      mkdirSync(cache, { recursive: true });
      for (const old of readdirSync(cache).filter((f) => f.startsWith('images-'))) rmSync(join(cache, old), { force: true });
      await run('podman', ['save', '--quiet', '-m', '--format', 'docker-archive', '-o', `${file}.part`, ...images], { env });
      renameSync(`${file}.part`, file);
      return file;
    });

    // The cluster, in namespaces of its own; this script again, as their first process.
    const tsx = join(repo, 'node_modules', '.bin', 'tsx');
    const args = JSON.stringify({ scratch, archive, bin, hold: process.argv.includes('--hold') });
    const code = await new Promise<number>((resolve) => {
      const child = spawn('unshare', ['--net', '--mount', '--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'private', tsx, join(repo, 'scripts', 'k8s-smoke.ts'), '--inside', args], {
        cwd: repo,
        stdio: 'inherit',
        env: { ...process.env, KUBECONFIG: join(scratch, 'admin.kubeconfig') },
      });
      // Ctrl-C reaches the inner run too (same process group): it tears down, then we clean up.
      const ignore = () => undefined;
      process.on('SIGINT', ignore);
      process.on('SIGTERM', () => child.kill('SIGTERM'));
      child.on('exit', (c, s) => resolve(c ?? (s ? 128 : 1)));
    });
    const result = join(scratch, 'result.json');
    if (existsSync(result)) {
      const r = JSON.parse(readFileSync(result, 'utf8')) as { timings: Timing[]; closing: string };
      inner = r.timings;
      closing = r.closing;
    }
    if (code !== 0) throw new Error(`the run in the cluster's namespaces failed (exit ${code})`);
  } catch (e) {
    process.stdout.write(`\nk8s:smoke FAILED: ${(e as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await phase('host clean-up (cgroups, scratch)', () => {
      const left = removeCgroups();
      const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(scratch));
      const procs = (output('ps', ['-eo', 'pid,args']) ?? '').split('\n').filter((l) => l.includes(scratch) && !l.includes(' ps '));
      const changed = kernelSettings() === settingsBefore ? [] : [`kernel settings were ${settingsBefore}, now ${kernelSettings()}`];
      if (left.length + mounts.length + procs.length + changed.length > 0) {
        say(`left after the run: ${[...left, ...mounts, ...procs, ...changed].join('\n')}`);
        process.exitCode = 1;
      }
      if (keepLogs || process.exitCode === 1) {
        const logs = join(cache, 'last-run-logs');
        rmSync(logs, { recursive: true, force: true });
        mkdirSync(cache, { recursive: true });
        if (existsSync(join(scratch, 'logs'))) spawnSync('cp', ['-a', join(scratch, 'logs'), logs]);
        say(`the components' logs: ${logs}`);
      }
      rmSync(scratch, { recursive: true, force: true });
    });
  }
  printTimings(process.exitCode === 1 ? 'FAILED' : `passed (Kubernetes ${KUBERNETES_VERSION})`, []);
  if (inner.length > 0) {
    const width = Math.max(...inner.map((t) => t.phase.length));
    process.stdout.write(`in the cluster:\n${inner.map((t) => `  ${t.phase.padEnd(width)} ${t.seconds.toFixed(1).padStart(7)} s${t.note ? `  (${t.note})` : ''}`).join('\n')}\n`);
  }
  if (closing) process.stdout.write(`\n${closing}\n`);
}
