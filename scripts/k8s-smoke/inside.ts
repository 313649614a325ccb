/**
 * The part of `npm run k8s:smoke` that runs inside the cluster's namespaces (scripts/k8s-smoke.ts
 * starts it with unshare): the node, the chart, the checks through the gateway, the faults.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, expect, type Job, makeClip, phases, sleep } from '../compose-smoke/kit.js';
import { Node, NODE_NAME } from './node.js';

const repo = join(import.meta.dirname, '..', '..');
const chart = join(repo, 'charts', 'baret');
const NS = 'baret';
const RELEASE = 'baret';
const valueFiles = [join(chart, 'ci', 'production-values.yaml'), join(import.meta.dirname, 'values.yaml')];
// BARET_K8S_SMOKE_SET=key=value[,key=value]: helm --set on top (e.g. defaults.drainSeconds=0, to see a fix matter)
const extraSet = process.env.BARET_K8S_SMOKE_SET ? ['--set', process.env.BARET_K8S_SMOKE_SET] : [];
const values = [...valueFiles.flatMap((f) => ['-f', f]), ...extraSet];
const component = (c: string) => `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${c}`;

export async function inside(o: { scratch: string; archive: string; bin: string; hold: boolean }): Promise<void> {
  const { say, phase, timings } = phases('k8s:smoke');
  const node = new Node({ scratch: o.scratch, bin: o.bin, say });
  const helmBin = join(process.env.BARET_ENGINES_DIR ?? join(process.env.HOME ?? '/root', '.cache', 'baret-engines'), 'bin', 'helm');
  // helm and the long kubectl waits run asynchronously: the clients polling the gateway meanwhile run
  // in this process too, and a synchronous call would pause them for its whole length
  const helm = (args: string[]) => runAsync(helmBin, [...args, '--kubeconfig', node.kubeconfig], 15 * 60_000);
  const kubectlAsync = (args: string[]) => runAsync(node.kubectlPath, ['--kubeconfig', node.kubeconfig, ...args], 15 * 60_000);
  const kubectl = (args: string[], input?: string) => {
    const r = node.kubectl(args, input);
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.err}`);
    return r.out;
  };
  const json = <T>(args: string[]) => JSON.parse(kubectl([...args, '-o', 'json'])) as T;
  const notes: string[] = [];
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await phase('stop the node (kubelet, containerd, control plane)', () => node.stop());
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      say(`${signal}: stopping`);
      void stop().then(() => process.exit(130));
    });

  let failed = false;
  try {
    node.prepareNamespace();
    await phase('control plane (etcd, API server, controller manager, scheduler)', () => node.controlPlane());
    const version = JSON.parse(kubectl(['version', '-o', 'json'])) as { serverVersion: { gitVersion: string } };
    notes.push(`Kubernetes ${version.serverVersion.gitVersion} (etcd, containerd, runc, CNI bridge from Debian)`);
    await phase('containerd; images imported', async () => {
      await node.containerd();
      node.importImages(o.archive);
    });
    await phase('kubelet, kube-proxy, cluster DNS: node Ready', () => node.kubelet(['workload=video']));
    await phase('storage classes, local volumes, namespace (Pod Security restricted)', () => storage(kubectl, o.scratch));

    const secret = (n: number) => randomBytes(n).toString('hex');
    const pg = secret(16);
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'baret-smoke', namespace: NS },
        stringData: {
          JWT_SECRET: secret(32),
          SERVICE_SECRET: secret(32),
          S3_ACCESS_KEY: `baret-${secret(6)}`,
          S3_SECRET_KEY: secret(20),
          MONGODB_PASSWORD: secret(16),
          MONGODB_URL: `mongodb://${RELEASE}-mongodb:27017/`,
          POSTGRES_PASSWORD: pg,
          POSTGRES_URL: `postgres://baret:${pg}@${RELEASE}-postgresql:5432/baret`,
        },
      }),
    );
    const install = () => helm(['install', RELEASE, chart, '--namespace', NS, ...values]);
    await phase('helm install (production values)', install);
    await phase('every workload Ready', () => workloadsReady(json, kubectl, node, 12 * 60_000));

    const svc = json<{ spec: { clusterIP: string } }>(['get', 'service', `${RELEASE}-gateway`, '-n', NS]);
    const gateway = `http://${svc.spec.clusterIP}:8080`;
    say(`gateway Service: ${gateway}`);
    const clip = makeClip(o.scratch);
    const user = await phase('gateway: register, log in, API key, analysis, JSON and PDF', () => firstJob(gateway, clip, kubectl));
    notes.push(user.summary);

    notes.push(await phase('fault: analysis pod deleted mid-job', () => analysisPodDeleted(gateway, user.key, makeClip(o.scratch, 40), kubectl, say)));
    notes.push(await phase('fault: PostgreSQL pod deleted under load', () => postgresDeleted(gateway, user.token, json, kubectl, node, say)));
    notes.push(
      await phase('fault: helm upgrade (config.logLevel) while GET /jobs is polled', async () => {
        const polled = poll(gateway, [(g) => api(g, '/jobs', { token: user.key }).then((r) => r.status)]);
        await sleep(3000);
        await helm(['upgrade', RELEASE, chart, '--namespace', NS, ...values, '--set', 'config.logLevel=warn']);
        for (const d of json<{ items: Array<{ metadata: { name: string } }> }>(['get', 'deployments', '-n', NS]).items) await kubectlAsync(['rollout', 'status', `deployment/${d.metadata.name}`, '-n', NS, '--timeout=600s']);
        await sleep(5000);
        const tally = await polled.stop();
        const bad = Object.entries(tally.counts).filter(([k]) => !k.endsWith(' 200'));
        expect(bad.length === 0, `requests failed during helm upgrade: ${JSON.stringify(tally.counts)}`, tally.failures);
        return `helm upgrade: ${tally.total} GET /jobs during the rolling restart of every Deployment, all 200`;
      }),
    );
    notes.push(await phase('helm uninstall (volumes kept, as the chart README says)', () => uninstall(helm, json, kubectl)));
  } catch (e) {
    failed = true;
    process.stdout.write(`\nk8s:smoke FAILED in the cluster: ${(e as Error).message}\n`);
    try {
      diagnose(node);
    } catch (d) {
      say(`diagnosis: ${(d as Error).message}`);
    }
  } finally {
    if (o.hold) await hold(o.scratch, node, say);
    await stop();
    writeFileSync(join(o.scratch, 'result.json'), JSON.stringify({ timings, closing: notes.join('\n') }));
  }
  process.exit(failed ? 1 : 0);
}

/** --hold: at the end (passed or failed) the cluster stays up until the printed file is removed (or 30 min pass), for a look inside. */
async function hold(scratch: string, node: Node, say: (t: string) => void): Promise<void> {
  const file = join(scratch, 'hold');
  writeFileSync(file, `${process.pid}\n`);
  // our pid is the namespace's own: the host finds us by our arguments
  say(`holding the cluster (at most 30 min): nsenter -t "$(pgrep -of 'k8s-smoke.ts --inside')" -n -m ${node.kubectlPath} --kubeconfig ${node.kubeconfig} -n ${NS} get pods`);
  say(`release it with: rm ${file}`);
  const deadline = Date.now() + 30 * 60_000;
  while (existsSync(file) && Date.now() < deadline) await sleep(2000);
}

/** A command's standard output; throws with its standard error when it fails. */
function runAsync(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 ? resolve(out) : reject(new Error(`${cmd.split('/').at(-1)} ${args.filter((a) => !a.includes('kubeconfig')).join(' ')}: ${err || `exit ${code ?? signal}`}`))));
  });
}

type Kubectl = (args: string[], input?: string) => string;
type Json = <T>(args: string[]) => T;

function storage(kubectl: Kubectl, scratch: string): void {
  const docs: object[] = [];
  for (const name of ['fast-ssd', 'standard'])
    docs.push({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain' });
  const volumes: Array<[string, string]> = [['fast-ssd', '100Gi'], ['fast-ssd', '100Gi'], ['fast-ssd', '100Gi'], ['fast-ssd', '100Gi'], ['standard', '500Gi'], ['standard', '500Gi']];
  volumes.forEach(([cls, size], i) => {
    const path = join(scratch, 'volumes', `${cls}-${i}`);
    spawnSync('mkdir', ['-p', path]);
    docs.push({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `smoke-${cls}-${i}` },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: cls,
        local: { path },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE_NAME] }] }] } },
      },
    });
  });
  docs.push({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
  });
  kubectl(['apply', '-f', '-'], docs.map((d) => JSON.stringify(d)).join('\n---\n'));
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string> };
  status: {
    phase: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{ name: string; ready: boolean; restartCount: number; state: { waiting?: { reason: string; message?: string }; terminated?: { reason: string } } }>;
    initContainerStatuses?: Array<{ name: string; state: { waiting?: { reason: string; message?: string } } }>;
  };
}
interface Workload {
  kind: string;
  metadata: { name: string; generation: number };
  spec: { replicas?: number };
  status: { readyReplicas?: number; updatedReplicas?: number; observedGeneration?: number };
}

/** Until every Deployment and StatefulSet of the namespace has all its replicas ready; fails early on a pod that cannot start. */
async function workloadsReady(json: Json, kubectl: Kubectl, node: Node, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let sandboxFailingSince: number | undefined;
  for (;;) {
    node.assertAlive();
    const items = json<{ items: Workload[] }>(['get', 'deployments,statefulsets', '-n', NS]).items;
    const waiting = items.filter((w) => (w.status.readyReplicas ?? 0) < (w.spec.replicas ?? 1) || (w.status.updatedReplicas ?? 0) < (w.spec.replicas ?? 1) || (w.status.observedGeneration ?? 0) < w.metadata.generation);
    if (items.length > 0 && waiting.length === 0) return;
    const pods = json<{ items: Pod[] }>(['get', 'pods', '-n', NS]).items;
    for (const p of pods) {
      for (const c of [...(p.status.containerStatuses ?? []), ...(p.status.initContainerStatuses ?? [])]) {
        const reason = c.state.waiting?.reason ?? '';
        const stuck = ['ErrImageNeverPull', 'ImagePullBackOff', 'ErrImagePull', 'CreateContainerConfigError', 'CreateContainerError', 'InvalidImageName'].includes(reason);
        if (stuck || (reason === 'CrashLoopBackOff' && 'restartCount' in c && Number(c.restartCount) >= 4))
          throw new Error(`pod ${p.metadata.name}, container ${c.name}: ${reason} ${c.state.waiting?.message ?? ''}\n${logsOf(kubectl, p.metadata.name, c.name)}`);
      }
    }
    // a pod whose sandbox the runtime cannot make has no container status: its events say why
    const sandbox = json<{ items: Array<{ message: string; involvedObject: { name: string } }> }>(['get', 'events', '-n', NS, '--field-selector', 'reason=FailedCreatePodSandBox']).items;
    if (sandbox.length > 0) sandboxFailingSince ??= Date.now();
    if (sandboxFailingSince !== undefined && Date.now() - sandboxFailingSince > 90_000)
      throw new Error(`pod sandboxes fail for 90 s (${new Set(sandbox.map((e) => e.involvedObject.name)).size} pods): ${sandbox.at(-1)!.message}\n${node.tail('containerd', 5)}`);
    const now = waiting.map((w) => `${w.kind}/${w.metadata.name} ${w.status.readyReplicas ?? 0}/${w.spec.replicas ?? 1}`).join(', ');
    if (now !== last) process.stdout.write(`  waiting: ${now}\n`);
    last = now;
    if (Date.now() > deadline) throw new Error(`not Ready within ${timeoutMs / 1000} s: ${now}`);
    await sleep(3000);
  }
}

function logsOf(kubectl: Kubectl, pod: string, container: string): string {
  const get = (previous: boolean) => {
    try {
      return kubectl(['logs', '-n', NS, pod, '-c', container, '--tail', '30', ...(previous ? ['--previous'] : [])]);
    } catch (e) {
      return (e as Error).message;
    }
  };
  return `---- ${pod}/${container} (previous run) ----\n${get(true)}\n---- ${pod}/${container} ----\n${get(false)}`;
}

function diagnose(node: Node): void {
  const k = (args: string[]) => {
    const r = node.kubectl(args);
    return r.out || r.err;
  };
  process.stdout.write(`\n---- pods ----\n${k(['get', 'pods', '-A', '-o', 'wide'])}\n---- events ----\n${k(['get', 'events', '-n', NS, '--sort-by=.lastTimestamp'])
    .split('\n')
    .slice(-40)
    .join('\n')}\n`);
  const pods = JSON.parse(node.kubectl(['get', 'pods', '-n', NS, '-o', 'json']).out || '{"items":[]}') as { items: Pod[] };
  for (const p of pods.items)
    for (const c of p.status.containerStatuses ?? [])
      if (!c.ready) process.stdout.write(`${logsOf((a) => node.kubectl(a).out || node.kubectl(a).err, p.metadata.name, c.name)}\n`);
  for (const name of ['kubelet', 'containerd', 'kube-apiserver']) process.stdout.write(`---- ${name} (last 15 lines) ----\n${node.tail(name, 15)}\n`);
}

// ---- through the gateway -------------------------------------------------------------------------
interface User {
  token: string;
  key: string;
  summary: string;
}
const PAYLOAD = { job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 2, frames_per_composite: 2 };

async function submit(gateway: string, key: string, clip: Buffer, payload: object = PAYLOAD): Promise<string> {
  const form = new FormData();
  form.append('payload', JSON.stringify(payload));
  form.append('file', new Blob([clip], { type: 'video/mp4' }), 'smoke.mp4');
  const submitted = await api<{ job_id: string }>(gateway, '/analyze', { method: 'POST', body: form, token: key });
  expect(submitted.status === 202 && typeof submitted.body.job_id === 'string', 'POST /analyze with the API key', submitted);
  return submitted.body.job_id;
}

async function finished(gateway: string, key: string, id: string, timeoutMs: number, onPoll?: (job: Job) => Promise<void>): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<Job>(gateway, `/jobs/${id}`, { token: key, headers: { 'accept-language': 'en' } });
    expect(res.status === 200, `GET /jobs/${id}`, res);
    if (['done', 'error', 'cancelled'].includes(res.body.status)) return res.body;
    await onPoll?.(res.body);
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.body.status} after ${timeoutMs / 1000} s: ${res.body.logs.map((l) => l.event).join(', ')}`);
    await sleep(500);
  }
}

async function lifetimeUsed(gateway: string, token: string): Promise<number> {
  const me = await api<{ quota: { lifetime_used: number } }>(gateway, '/auth/me', { token });
  expect(me.status === 200, 'GET /auth/me', me);
  return me.body.quota.lifetime_used;
}

const PASSWORD = 'correct horse battery staple';

async function login(gateway: string, email: string): Promise<string> {
  const res = await api<{ access_token: string }>(gateway, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: PASSWORD }) });
  expect(res.status === 200 && typeof res.body.access_token === 'string', `POST /auth/login ${email}`, res);
  return res.body.access_token;
}

/** Registers an account and logs it in: its id and access token. */
async function account(gateway: string, email: string): Promise<{ id: string; token: string }> {
  const reg = await api<{ id: string }>(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: PASSWORD }) });
  expect(reg.status === 201 && typeof reg.body.id === 'string', `POST /auth/register ${email}`, reg);
  return { id: reg.body.id, token: await login(gateway, email) };
}

async function firstJob(gateway: string, clip: Buffer, kubectl: Kubectl): Promise<User> {
  const tag = randomBytes(4).toString('hex');
  const { id: userId, token } = await account(gateway, `k8s-smoke-${tag}@example.com`);
  // The PDF report is a Pro feature: an operator makes the first admin as NOTES.txt says (kubectl exec
  // into the identity Deployment, under its read-only root), and the admin puts the user on Pro.
  const adminEmail = `k8s-smoke-admin-${tag}@example.com`;
  const before = await account(gateway, adminEmail);
  const promoted = kubectl(['exec', '-n', NS, `deploy/${RELEASE}-identity`, '--', 'node', 'bin/baret.mjs', 'admin', 'promote', adminEmail]);
  expect(promoted.includes(adminEmail), 'admin promote (kubectl exec, as NOTES.txt says)', promoted);
  // the promotion reaches the identity service's read model by its projection: a moment later
  for (let i = 0; ; i++) {
    const me = await api<{ is_admin: boolean }>(gateway, '/auth/me', { token: before.token });
    if (me.status === 200 && me.body.is_admin) break;
    expect(i < 60, `${adminEmail} not an admin 60 s after admin promote`, me);
    await sleep(1000);
  }
  const plan = await api(gateway, `/admin/users/${userId}/quota`, { method: 'PATCH', body: JSON.stringify({ plan_name: 'pro' }), token: await login(gateway, adminEmail) });
  expect(plan.status === 200, `PATCH /admin/users/${userId}/quota (pro) by the promoted admin`, plan);
  const created = await api<{ token: string }>(gateway, '/auth/tokens', { method: 'POST', body: JSON.stringify({ name: 'k8s-smoke' }), token });
  expect(created.status === 201 && typeof created.body.token === 'string', 'POST /auth/tokens', created);
  const key = created.body.token;
  const id = await submit(gateway, key, clip);
  const job = await finished(gateway, key, id, 5 * 60_000);
  expect(job.status === 'done', `job ${id} ended ${job.status}`, job.error ?? job.logs.map((l) => l.event));
  // the job as a JSON download (docs/api.md: the same JobDetail as GET /jobs/{id}), its result inside
  const result = await api<{ job_id: string; status: string; result: Record<string, unknown> | null }>(gateway, `/jobs/${id}/result.json`, { token: key });
  const verdict = result.body.result ?? {};
  expect(result.status === 200 && result.body.job_id === id && result.body.status === 'done' && Number(verdict.composites_processed) > 0 && 'missing_groups' in verdict, `GET /jobs/${id}/result.json`, result);
  const pdf = await fetch(`${gateway}/jobs/${id}/report.pdf`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(60_000) });
  const bytes = Buffer.from(await pdf.arrayBuffer());
  expect(pdf.status === 200 && (pdf.headers.get('content-type') ?? '').startsWith('application/pdf') && bytes.subarray(0, 5).toString() === '%PDF-', `GET /jobs/${id}/report.pdf`, `${pdf.status} ${pdf.headers.get('content-type')} ${bytes.subarray(0, 40).toString()}`);
  expect((await lifetimeUsed(gateway, token)) === 1, 'lifetime_used after one analysis', 'not 1');
  return { token, key, summary: `job ${id} (API key): done, ${String(verdict.composites_processed)} composites by ${String(verdict.model_used)}; result JSON and a ${bytes.length}-byte PDF report` };
}

async function analysisPodDeleted(gateway: string, key: string, clip: Buffer, kubectl: Kubectl, say: (t: string) => void): Promise<string> {
  const before = await lifetimeUsed(gateway, key);
  const id = await submit(gateway, key, clip, { ...PAYLOAD, target_composites: 8 });
  let deleted = '';
  const job = await finished(gateway, key, id, 8 * 60_000, async (j) => {
    if (deleted || j.status !== 'running') return;
    deleted = kubectl(['get', 'pods', '-n', NS, '-l', component('analysis'), '-o', 'jsonpath={.items[*].metadata.name}']).trim();
    // an abrupt end (1 s after SIGTERM), as when a node dies: not the 8.5 min of grace
    kubectl(['delete', 'pod', '-n', NS, '-l', component('analysis'), '--grace-period=1', '--wait=false']);
    say(`job ${id} running (${j.logs.map((l) => l.event).join(', ')}): deleted ${deleted}`);
  });
  expect(deleted !== '', `job ${id} finished before the analysis pod could be deleted`, job.logs.map((l) => l.event));
  expect(job.status === 'done', `job ${id} ended ${job.status} after the analysis pod was deleted`, job.error ?? job.logs.map((l) => l.event));
  const completed = job.logs.filter((l) => l.event === 'job_completed').length;
  expect(completed === 1, `job ${id}: job_completed ${completed} times`, job.logs.map((l) => l.event));
  const after = await lifetimeUsed(gateway, key);
  expect(after === before + 1, `job ${id}: charged ${after - before} times`, { before, after });
  return `analysis pod ${deleted} deleted mid-job: job ${id} done once (job_completed ×1), charged once (lifetime_used ${before} → ${after})`;
}

interface Poller {
  stop: () => Promise<{ total: number; counts: Record<string, number>; failures: string[] }>;
}
/** Calls the gateway in a loop (each call's label and status counted) until stopped. */
function poll(gateway: string, calls: Array<(g: string) => Promise<number>>, pauseMs = 200): Poller {
  const counts: Record<string, number> = {};
  const failures: string[] = [];
  let total = 0;
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const call = calls[i % calls.length]!;
      const label = `call${i % calls.length}`;
      let status: string;
      try {
        status = String(await call(gateway));
      } catch (e) {
        status = `error`;
        if (failures.length < 5) failures.push(`${label}: ${(e as Error).message}`);
      }
      total++;
      counts[`${label} ${status}`] = (counts[`${label} ${status}`] ?? 0) + 1;
      await sleep(pauseMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { total, counts, failures };
    },
  };
}

async function postgresDeleted(gateway: string, token: string, json: Json, kubectl: Kubectl, node: Node, say: (t: string) => void): Promise<string> {
  // reads (GET /jobs, GET /auth/me) and a write to the event store (an API key created)
  const calls = [
    (g: string) => api(g, '/jobs', { token }).then((r) => r.status),
    (g: string) => api(g, '/auth/me', { token }).then((r) => r.status),
    (g: string) => api(g, '/auth/tokens', { method: 'POST', body: JSON.stringify({ name: `k8s-smoke-${Date.now()}` }), token }).then((r) => r.status),
  ];
  const polled = poll(gateway, calls, 250);
  await sleep(3000);
  const pod = `${RELEASE}-postgresql-0`;
  kubectl(['delete', 'pod', '-n', NS, pod, '--wait=false']);
  say(`deleted ${pod}`);
  // back: the StatefulSet's new pod Ready, then every call 200 or 201 again for 15 s
  const deadline = Date.now() + 6 * 60_000;
  await sleep(5000);
  await workloadsReady(json, kubectl, node, 6 * 60_000);
  let recovered = 0;
  for (;;) {
    const probe = await Promise.all(calls.map((c) => c(gateway).catch(() => 0)));
    if (probe.every((s) => s === 200 || s === 201)) {
      if (recovered === 0) recovered = Date.now();
      if (Date.now() - recovered > 15_000) break;
    } else recovered = 0;
    if (Date.now() > deadline) break;
    await sleep(1000);
  }
  const tally = await polled.stop();
  const bad = Object.entries(tally.counts).filter(([k]) => !/ (200|201|503)$/.test(k));
  expect(bad.length === 0, `answers other than 200, 201 or 503 while PostgreSQL was away: ${JSON.stringify(tally.counts)}`, tally.failures);
  expect(recovered > 0, 'the services did not recover within 6 min of PostgreSQL coming back', tally.counts);
  const unavailable = Object.entries(tally.counts)
    .filter(([k]) => k.endsWith(' 503'))
    .reduce((n, [, v]) => n + v, 0);
  return `PostgreSQL pod deleted under load: ${tally.total} requests, ${unavailable} answered 503, none 500; recovered without an operator`;
}

async function uninstall(helm: (a: string[]) => Promise<string>, json: Json, kubectl: Kubectl): Promise<string> {
  await helm(['uninstall', RELEASE, '--namespace', NS, '--wait', '--timeout', '10m']);
  const left = json<{ items: Array<{ kind: string; metadata: { name: string }; status?: { phase?: string } }> }>(['get', 'deployments,statefulsets,pvc,secrets', '-n', NS]).items;
  const workloads = left.filter((i) => i.kind === 'Deployment' || i.kind === 'StatefulSet');
  expect(workloads.length === 0, 'workloads left after helm uninstall', workloads.map((w) => w.metadata.name));
  const claims = left.filter((i) => i.kind === 'PersistentVolumeClaim');
  const expected = ['kafka', 'postgresql', 'mongodb', 'minio'].map((e) => `data-${RELEASE}-${e}-0`);
  for (const name of expected) expect(claims.some((c) => c.metadata.name === name && c.status?.phase === 'Bound'), `PVC ${name} kept and bound after helm uninstall`, claims.map((c) => c.metadata.name));
  // and removed as the README says, when the data is no longer wanted
  kubectl(['delete', 'pvc', '-n', NS, '-l', `app.kubernetes.io/instance=${RELEASE}`, '--wait=true', '--timeout=120s']);
  kubectl(['delete', 'secret', '-n', NS, 'baret-smoke']);
  const gone = json<{ items: unknown[] }>(['get', 'pvc', '-n', NS]).items.length;
  expect(gone === 0, 'PVCs left after deleting them as the README says', gone);
  return `helm uninstall: the ${claims.length} PVCs (${expected.join(', ')}) kept; removed with kubectl delete pvc -l app.kubernetes.io/instance=${RELEASE}`;
}
