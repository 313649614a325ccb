import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { engineInstalled, enginesDir } from '../../services/platform/src/testing/engines/common.js';
import { adrServices, isKnownVariable, readRepoFile, repoRoot, wiringProblems } from './adr.js';

const run = promisify(execFile);
const KUBERNETES_VERSION = '1.30.0';
const tool = (name: string): string => join(enginesDir(), 'bin', name);
const schemas = join(enginesDir(), `kubernetes-json-schema-v${KUBERNETES_VERSION}`);
const installed = ['helm', 'kubeconform', 'kustomize'].every((t) => existsSync(tool(t))) && existsSync(schemas);
const ready = engineInstalled('deployment (helm, kubeconform, kustomize)', installed, 'helm, kubeconform, kustomize or the Kubernetes schemas (scripts/engines/install-helm.sh)');

const chart = join(repoRoot, 'charts', 'baret');
const SERVICES = adrServices().map((s) => s.name);

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are walked as plain JSON */
type Manifest = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

async function helm(args: string[]): Promise<string> {
  const { stdout } = await run(tool('helm'), args, { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const parseManifests = (text: string): Manifest[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);

async function render(valuesFiles: string[], extra: string[] = []): Promise<{ text: string; manifests: Manifest[] }> {
  const text = await helm(['template', 'rel', chart, '--namespace', 'baret', '--kube-version', KUBERNETES_VERSION, ...valuesFiles.flatMap((f) => ['-f', f]), ...extra]);
  return { text, manifests: parseManifests(text) };
}

/** kubeconform -strict against the local schemas; ScaledObject (a KEDA CRD) is checked by the tests instead. */
async function kubeconform(text: string, dir: string): Promise<{ valid: number; skipped: number; problems: string[] }> {
  const file = join(dir, `manifests-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const location = `${schemas}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
  const args = ['-strict', '-summary', '-output', 'json', '-kubernetes-version', KUBERNETES_VERSION, '-schema-location', location, '-skip', 'ScaledObject', file];
  const { stdout } = await run(tool('kubeconform'), args).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  const out = JSON.parse(stdout) as { resources?: { kind: string; name: string; status: string; msg: string }[]; summary: { valid: number; invalid: number; errors: number; skipped: number } };
  const problems = (out.resources ?? []).filter((r) => r.status !== 'statusValid' && r.status !== 'statusSkipped').map((r) => `${r.kind} ${r.name}: ${r.status} ${r.msg}`);
  return { valid: out.summary.valid, skipped: out.summary.skipped, problems };
}

const podSpecOf = (m: Manifest): any => (['Deployment', 'StatefulSet'].includes(m.kind) ? m.spec.template.spec : null);
const workloads = (ms: Manifest[]) => ms.filter((m) => podSpecOf(m));
const find = (ms: Manifest[], kind: string, name: string): Manifest => {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} in ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
};
const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

/** One service's whole environment: its ConfigMap's data, and its env entries (secret ones as `secret:<name>/<key>`). */
function envOf(ms: Manifest[], service: string): Record<string, string> {
  const deployment = find(ms, 'Deployment', `rel-baret-${service}`);
  const container = podSpecOf(deployment).containers[0];
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) Object.assign(env, find(ms, 'ConfigMap', from.configMapRef.name).data);
  for (const e of container.env ?? []) env[e.name] = e.value ?? `secret:${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`;
  return env;
}

const VALUE_SETS = {
  default: [] as string[],
  external: [join(chart, 'ci', 'external-values.yaml')],
  production: [join(chart, 'ci', 'production-values.yaml')],
  postgres: [join(chart, 'ci', 'postgres-values.yaml')],
  kurrentdb: [join(chart, 'ci', 'kurrentdb-values.yaml')],
  onprem: [join(chart, 'ci', 'onprem-values.yaml')],
};

describe.skipIf(!ready)('Helm chart charts/baret', () => {
  let dir: string;
  const rendered: Record<string, { text: string; manifests: Manifest[] }> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-helm-'));
    for (const [name, files] of Object.entries(VALUE_SETS)) rendered[name] = await render(files);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, files] of Object.entries(VALUE_SETS)) {
    describe(`with ${name} values`, () => {
      it('passes helm lint --strict', async () => {
        const out = await helm(['lint', chart, '--strict', '--kube-version', KUBERNETES_VERSION, ...files.flatMap((f) => ['-f', f])]);
        expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
      });

      it('renders manifests that kubeconform -strict finds valid against the Kubernetes schemas', async () => {
        const { text, manifests } = rendered[name]!;
        const result = await kubeconform(text, dir);
        expect(result.problems).toEqual([]);
        const scaledObjects = manifests.filter((m) => m.kind === 'ScaledObject').length;
        expect(result.skipped).toBe(scaledObjects);
        expect(result.valid).toBe(manifests.length - scaledObjects);
      });

      it('runs every container non-root, read-only, without capabilities, under seccomp RuntimeDefault', () => {
        const all = workloads(rendered[name]!.manifests);
        expect(all.length).toBeGreaterThanOrEqual(SERVICES.length);
        for (const w of all) {
          const pod = podSpecOf(w);
          expect(pod.securityContext.runAsNonRoot, w.metadata.name).toBe(true);
          expect(pod.securityContext.runAsUser, w.metadata.name).toBeGreaterThan(0);
          expect(pod.securityContext.seccompProfile, w.metadata.name).toEqual({ type: 'RuntimeDefault' });
          expect(pod.automountServiceAccountToken, w.metadata.name).toBe(false);
          for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
            const sc = c.securityContext;
            const label = `${w.metadata.name}/${c.name}`;
            expect(sc.runAsNonRoot, label).toBe(true);
            expect(sc.readOnlyRootFilesystem, label).toBe(true);
            expect(sc.allowPrivilegeEscalation, label).toBe(false);
            expect(sc.capabilities, label).toEqual({ drop: ['ALL'] });
            expect(sc.seccompProfile, label).toEqual({ type: 'RuntimeDefault' });
          }
        }
      });

      it('gives every service its probes, scrape annotations, a PDB, a scratch emptyDir where it needs one, a drain before SIGTERM, no unavailable pod in a rolling upgrade, and a grace period longer than both', () => {
        const ms = rendered[name]!.manifests;
        for (const s of SERVICES) {
          const d = find(ms, 'Deployment', `rel-baret-${s}`);
          const pod = podSpecOf(d);
          const c = pod.containers[0];
          expect(c.args).toEqual([s]);
          expect(c.livenessProbe.httpGet.path).toBe('/healthz');
          expect(c.readinessProbe.httpGet.path).toBe('/readyz');
          expect(d.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': '8080' });
          find(ms, 'PodDisruptionBudget', `rel-baret-${s}`);
          const env = envOf(ms, s);
          expect(pod.terminationGracePeriodSeconds * 1000, s).toBeGreaterThan(Number(env.SHUTDOWN_GRACE_MS));
          const mounts = (c.volumeMounts as { name: string; mountPath: string }[]).map((m) => m.mountPath);
          expect(mounts).toContain('/tmp');
          // a rolling upgrade on a real cluster (npm run k8s:smoke): the new pod Ready before the old goes,
          // and the old one still serving while the endpoints and kube-proxy forget it
          expect(d.spec.strategy.rollingUpdate.maxUnavailable, s).toBe(0);
          const drain = Number(c.lifecycle.preStop.exec.command[1]);
          expect(c.lifecycle.preStop.exec.command[0], s).toBe('sleep');
          expect(drain, s).toBeGreaterThanOrEqual(5);
          expect(pod.terminationGracePeriodSeconds * 1000, s).toBeGreaterThan(drain * 1000 + Number(env.SHUTDOWN_GRACE_MS));
          if (env.BARET_SCRATCH_DIR) expect(mounts).toContain(env.BARET_SCRATCH_DIR);
        }
        // the longest job step: a vision call with its retries, 4 × 60 s + 3 × 60 s = 420 s
        expect(Number(envOf(ms, 'analysis').SHUTDOWN_GRACE_MS)).toBeGreaterThanOrEqual(420_000);
        expect(envOf(ms, 'analysis').BARET_SCRATCH_DIR).toBe('/scratch');
        expect(envOf(ms, 'job').BARET_SCRATCH_DIR).toBe('/scratch');
      });

      it('gives each service only known variables, the URLs of the services it calls and the engines it needs (ADR 0011)', () => {
        const ms = rendered[name]!.manifests;
        for (const s of SERVICES) {
          const env = envOf(ms, s);
          expect(Object.keys(env).filter((k) => !isKnownVariable(k)), s).toEqual([]);
          expect(env.BARET_MODE).toBe('distributed');
          expect(env.SERVICE_SECRET, s).toMatch(/^secret:/);
          expect(wiringProblems(s, env, (callee) => `http://rel-baret-${callee}:8080`), s).toEqual([]);
        }
      });

      it('has a NetworkPolicy per service that lets in only its callers (the gateway: everyone allowed) and lets out only DNS, its callees and its engines', () => {
        const ms = rendered[name]!.manifests;
        const rows = adrServices();
        for (const s of SERVICES) {
          const np = find(ms, 'NetworkPolicy', `rel-baret-${s}`);
          expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
          expect(np.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe(s);
          const components = (rules: any[]) => rules.flatMap((r: any) => (r.from ?? r.to ?? []).flatMap((p: any) => p.podSelector?.matchExpressions?.flatMap((e: any) => e.values) ?? []));
          const row = rows.find((r) => r.name === s)!;
          const callees = row.urls[0] === '*' ? SERVICES.filter((x) => x !== s) : row.urls.map((u) => u.replace(/_URL$/, '').toLowerCase());
          expect(components(np.spec.egress).sort(), `${s} egress`).toEqual([...callees].sort());
          const callers = rows.filter((r) => r.urls[0] === '*' || r.urls.includes(`${s.toUpperCase()}_URL`)).map((r) => r.name);
          expect(components(np.spec.ingress).sort(), `${s} ingress`).toEqual(callers.filter((c) => c !== s).sort());
          expect(np.spec.egress[0].ports).toEqual([{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }]);
        }
        for (const engine of workloads(ms).filter((w) => w.kind === 'StatefulSet')) find(ms, 'NetworkPolicy', engine.metadata.name);
      });

      it('keeps every secret out of ConfigMaps and plain env values, and every secret reference resolves', () => {
        const ms = rendered[name]!.manifests;
        const secretNames = /SECRET|PASSWORD|API_KEY|ACCESS_KEY|^MONGODB_URL$|^POSTGRES_URL$|^SMTP_URL$|^EVENTSTORE_URL$/;
        const generated = ms.filter((m) => m.kind === 'Secret');
        const secretValues = generated.flatMap((s) => Object.values(s.data ?? {}).map(b64)).filter((v) => v.length >= 8);
        for (const cm of ms.filter((m) => m.kind === 'ConfigMap')) {
          for (const [k, v] of Object.entries(cm.data ?? {})) {
            if (k !== 'EVENTSTORE_URL' || !/^kurrentdb:\/\/[^@]+$/.test(v)) expect(k, `${cm.metadata.name} ${k}`).not.toMatch(secretNames);
            for (const secret of secretValues) expect(v.includes(secret), `${cm.metadata.name} ${k} holds a secret value`).toBe(false);
          }
        }
        for (const w of workloads(ms)) {
          for (const c of podSpecOf(w).containers) {
            for (const e of c.env ?? []) if (secretNames.test(e.name) && e.name !== 'EVENTSTORE_URL') expect(e.valueFrom?.secretKeyRef, `${w.metadata.name} ${e.name}`).toBeDefined();
            for (const e of c.env ?? []) {
              const ref = e.valueFrom?.secretKeyRef;
              const own = ref && generated.find((s) => s.metadata.name === ref.name);
              if (own) expect(Object.keys(own.data ?? {}), `${w.metadata.name} ${e.name} → ${ref.name}/${ref.key}`).toContain(ref.key);
            }
          }
        }
      });
    });
  }

  it('no values file holds a secret value: only names of Secrets and of their keys', () => {
    const files = [join(chart, 'values.yaml'), ...Object.values(VALUE_SETS).flat(), join(repoRoot, 'k8s', 'dev', 'values.yaml')];
    const offences: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
      if (node && typeof node === 'object') return Object.entries(node).forEach(([k, v]) => walk(v, path ? `${path}.${k}` : k));
      const key = path.split('.').at(-1) ?? '';
      if (typeof node === 'string' && node !== '' && !path.startsWith('secrets.keys.') && /(password|secret|token|apikey|accesskey|secretkey)$/i.test(key) && key !== 'existingSecret') offences.push(`${path}=${node}`);
      if (typeof node === 'string' && /^[a-z]+:\/\/[^/\s:@]+:[^/\s@]+@/i.test(node)) offences.push(`${path} holds a URL with a password`);
    };
    for (const f of files) walk(parse(readFileSync(f, 'utf8')), '');
    expect(offences).toEqual([]);
    expect(files.length).toBe(7);
  });

  it('generates the Secret once and keeps it on uninstall; with existingSecret it creates none and reads the operator\'s', () => {
    const own = find(rendered.default!.manifests, 'Secret', 'rel-baret');
    expect(own.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(b64(own.data!.JWT_SECRET!).length).toBeGreaterThanOrEqual(32);
    expect(b64(own.data!.SERVICE_SECRET!).length).toBeGreaterThanOrEqual(32);
    expect(b64(own.data!.MONGODB_URL!)).toBe(`mongodb://root:${b64(own.data!.MONGODB_PASSWORD!)}@rel-baret-mongodb:27017/?authSource=admin`);
    expect(readRepoFile('charts/baret/templates/secret.yaml')).toMatch(/lookup "v1" "Secret" \.Release\.Namespace/);

    const ms = rendered.external!.manifests;
    expect(ms.filter((m) => m.kind === 'Secret')).toEqual([]);
    expect(ms.filter((m) => m.kind === 'StatefulSet')).toEqual([]);
    expect(envOf(ms, 'identity')).toMatchObject({ SERVICE_SECRET: 'secret:baret-app/SERVICE_SECRET', JWT_SECRET: 'secret:baret-app/JWT_SECRET', MONGODB_URL: 'secret:baret-mongodb/url', POSTGRES_URL: 'secret:baret-postgres/url', EVENT_STORE: 'postgres' });
    expect(envOf(ms, 'analysis')).toMatchObject({ S3_ACCESS_KEY: 'secret:baret-s3/access-key', S3_SECRET_KEY: 'secret:baret-s3/secret-key', OPENAI_API_KEY: 'secret:baret-openai/api-key', S3_ENDPOINT: 'https://s3.eu-central-1.amazonaws.com' });
    expect(envOf(ms, 'notification')).toMatchObject({ SMTP_URL: 'secret:baret-smtp/url' });
    expect(envOf(ms, 'quota').JWT_SECRET).toBeUndefined();
  });

  it('bundles KurrentDB as the event store when asked (PostgreSQL is the default)', () => {
    const ms = rendered.kurrentdb!.manifests;
    expect(ms.filter((m) => m.kind === 'StatefulSet').map((m) => m.metadata.name).sort()).toEqual(['rel-baret-kafka', 'rel-baret-kurrentdb', 'rel-baret-minio', 'rel-baret-mongodb']);
    for (const s of ['identity', 'quota', 'job', 'notification']) expect(envOf(ms, s)).toMatchObject({ EVENT_STORE: 'kurrentdb' });
    expect(envOf(ms, 'identity').EVENTSTORE_URL).toMatch(/^kurrentdb:\/\//);
    expect(envOf(ms, 'identity').POSTGRES_URL).toBeUndefined();
  });

  it('bundles PostgreSQL as the event store by default, its URL with the generated password in the Secret only', () => {
    for (const ms of [rendered.default!.manifests, rendered.postgres!.manifests]) {
      for (const s of ['identity', 'quota', 'job', 'notification']) expect(envOf(ms, s)).toMatchObject({ EVENT_STORE: 'postgres', POSTGRES_URL: 'secret:rel-baret/POSTGRES_URL' });
    }
    const ms = rendered.postgres!.manifests;
    expect(ms.filter((m) => m.kind === 'StatefulSet').map((m) => m.metadata.name).sort()).toEqual(['rel-baret-kafka', 'rel-baret-minio', 'rel-baret-mongodb', 'rel-baret-postgresql']);
    const secret = find(ms, 'Secret', 'rel-baret');
    expect(b64(secret.data!.POSTGRES_URL!)).toBe(`postgres://baret:${b64(secret.data!.POSTGRES_PASSWORD!)}@rel-baret-postgresql:5432/baret`);
    for (const s of ['identity', 'quota', 'job', 'notification']) expect(envOf(ms, s)).toMatchObject({ EVENT_STORE: 'postgres', POSTGRES_URL: 'secret:rel-baret/POSTGRES_URL' });
    expect(envOf(ms, 'identity').EVENTSTORE_URL).toBeUndefined();
    const egress = JSON.stringify(find(ms, 'NetworkPolicy', 'rel-baret-job').spec.egress);
    expect(egress).toContain('"port":5432');
    expect(egress).not.toContain('"port":2113');
  });

  it('lets every service send spans to the OpenTelemetry collector (OTLP/HTTP) only when an endpoint is configured', () => {
    for (const s of SERVICES) {
      const otel = (ms: Manifest[]) => find(ms, 'NetworkPolicy', `rel-baret-${s}`).spec.egress.filter((r: any) => r.ports.some((p: any) => p.port === 4318));
      expect(otel(rendered.default!.manifests), s).toEqual([]);
      expect(otel(rendered.production!.manifests), s).toEqual([{ ports: [{ port: 4318, protocol: 'TCP' }], to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } }] }]);
      expect(envOf(rendered.production!.manifests, s)).toMatchObject({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318', OTEL_SERVICE_NAME: `baret-${s}` });
    }
  });

  it('gives the identity service (only) the single sign-on settings, its client secret from the operator\'s Secret, and a way out to the issuer (issue 30)', async () => {
    expect(Object.keys(envOf(rendered.default!.manifests, 'identity')).filter((k) => k.startsWith('OIDC_'))).toEqual([]);
    const sso = [
      '--set', 'sso.issuer=https://login.example.com/realms/baret',
      '--set', 'sso.clientId=baret',
      '--set', 'sso.redirectUrl=https://baret.example.com/login/sso',
      '--set', 'sso.orgDomains=example.com=11111111-1111-4111-8111-111111111111',
      '--set', 'sso.clientSecret.existingSecret=baret-oidc',
      '--set', 'sso.ports={443,8443}',
    ];
    const { manifests } = await render([], sso);
    expect(envOf(manifests, 'identity')).toMatchObject({
      OIDC_ISSUER: 'https://login.example.com/realms/baret',
      OIDC_CLIENT_ID: 'baret',
      OIDC_REDIRECT_URL: 'https://baret.example.com/login/sso',
      OIDC_ORG_DOMAINS: 'example.com=11111111-1111-4111-8111-111111111111',
      OIDC_SCOPES: 'openid email profile',
      OIDC_CLIENT_SECRET: 'secret:baret-oidc/OIDC_CLIENT_SECRET',
    });
    for (const s of SERVICES.filter((x) => x !== 'identity')) expect(Object.keys(envOf(manifests, s)).filter((k) => k.startsWith('OIDC_')), s).toEqual([]);
    const egress = find(manifests, 'NetworkPolicy', 'rel-baret-identity').spec.egress;
    expect(egress).toContainEqual({ ports: [{ port: 443, protocol: 'TCP' }, { port: 8443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] });
    // An issuer without the client's id, redirect URL or secret is refused.
    await expect(render([], ['--set', 'sso.issuer=https://login.example.com'])).rejects.toThrow(/sso.clientId, sso.redirectUrl/);
  });

  it('lets the notification service reach webhook and push receivers on 80/443 of the internet (private hosts only when listed) and gives it its settings', () => {
    const notifyRules = (ms: Manifest[], s: string) => find(ms, 'NetworkPolicy', `rel-baret-${s}`).spec.egress.filter((r: any) => (r.to ?? []).some((p: any) => p.ipBlock) && r.ports.some((p: any) => p.port === 443));
    const internet = [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'] } }, { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '::1/128'] } }];
    const web = [{ port: 80, protocol: 'TCP' }, { port: 443, protocol: 'TCP' }];
    expect(notifyRules(rendered.default!.manifests, 'notification')).toEqual([{ ports: web, to: internet }]);
    expect(notifyRules(rendered.onprem!.manifests, 'notification')).toEqual([
      { ports: web, to: internet },
      { ports: [{ port: 443, protocol: 'TCP' }, { port: 8443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.20.0.0/16' } }] },
    ]);
    // Only the notification service (and the analysis service's vision endpoint) goes out on 443.
    for (const s of SERVICES.filter((x) => x !== 'notification' && x !== 'analysis')) expect(notifyRules(rendered.onprem!.manifests, s), s).toEqual([]);

    expect(envOf(rendered.default!.manifests, 'notification')).toMatchObject({ NOTIFY_ALLOW_PRIVATE_HOSTS: 'false', NOTIFY_WEBHOOK_RETRY_BASE_MS: '30000' });
    expect(envOf(rendered.default!.manifests, 'notification').PUBLIC_URL).toBeUndefined();
    expect(envOf(rendered.default!.manifests, 'notification').VAPID_PRIVATE_KEY).toBeUndefined();
    expect(envOf(rendered.production!.manifests, 'notification').PUBLIC_URL).toBe('https://baret.example.com');
    expect(envOf(rendered.onprem!.manifests, 'notification')).toMatchObject({
      PUBLIC_URL: 'https://baret.intranet.example',
      NOTIFY_ALLOW_PRIVATE_HOSTS: 'true',
      NOTIFY_WEBHOOK_RETRY_BASE_MS: '10000',
      SMTP_URL: 'secret:baret-smtp/url',
      VAPID_PUBLIC_KEY: 'secret:baret-vapid/public-key',
      VAPID_PRIVATE_KEY: 'secret:baret-vapid/private-key',
    });
    for (const s of SERVICES.filter((x) => x !== 'notification')) expect(Object.keys(envOf(rendered.onprem!.manifests, s)).filter((k) => /^(VAPID_|NOTIFY_|PUBLIC_URL|SMTP_URL)/.test(k)), s).toEqual([]);
  });

  it('trusts X-Forwarded-For at the gateway only behind the Ingress', () => {
    expect(envOf(rendered.default!.manifests, 'gateway').TRUST_PROXY).toBe('false');
    expect(envOf(rendered.production!.manifests, 'gateway').TRUST_PROXY).toBe('true');
  });

  it('scales the analysis workers on CPU by default, and with KEDA on the lag of job-events (group analysis) in production', () => {
    const hpa = find(rendered.default!.manifests, 'HorizontalPodAutoscaler', 'rel-baret-analysis');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'rel-baret-analysis' });
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    const prod = rendered.production!.manifests;
    expect(prod.find((m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name === 'rel-baret-analysis')).toBeUndefined();
    const so = find(prod, 'ScaledObject', 'rel-baret-analysis');
    expect(so.apiVersion).toBe('keda.sh/v1alpha1');
    expect(so.spec.scaleTargetRef.name).toBe('rel-baret-analysis');
    expect(so.spec.triggers[0]).toMatchObject({ type: 'kafka', metadata: { topic: 'job-events', consumerGroup: 'analysis', bootstrapServers: 'rel-baret-kafka:9092' } });
    expect(find(prod, 'Deployment', 'rel-baret-analysis').spec.replicas).toBeUndefined();
    const kafkaPolicy = find(prod, 'NetworkPolicy', 'rel-baret-kafka');
    expect(JSON.stringify(kafkaPolicy.spec.ingress)).toContain('"kubernetes.io/metadata.name":"keda"');
  });

  it('serves the gateway through an Ingress with TLS in production, and publishes nothing else', () => {
    const ms = rendered.production!.manifests;
    const ingresses = ms.filter((m) => m.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    expect(ingresses[0]!.spec.tls).toEqual([{ hosts: ['baret.example.com'], secretName: 'baret-tls' }]);
    expect(ingresses[0]!.spec.rules[0].http.paths[0].backend.service.name).toBe('rel-baret-gateway');
    for (const set of Object.values(rendered)) for (const s of set.manifests.filter((m) => m.kind === 'Service')) expect(s.spec.type ?? 'ClusterIP', s.metadata.name).toBe('ClusterIP');
    expect(rendered.default!.manifests.filter((m) => m.kind === 'Ingress')).toEqual([]);
  });

  it('refuses a misspelt key at any level (values.schema.json), and inconsistent values', async () => {
    const attempt = (set: string) => helm(['template', 'rel', chart, '--kube-version', KUBERNETES_VERSION, '--set', set]).then(() => 'rendered', (e: { stderr?: string }) => e.stderr ?? String(e));
    expect(await attempt('services.gatway.replicas=2')).toMatch(/additional properties 'gatway' not allowed/);
    expect(await attempt('kafka.persistence.sise=1Gi')).toMatch(/additional properties 'sise' not allowed/);
    expect(await attempt('services.analysis.keda.lagTreshold=3')).toMatch(/additional properties 'lagTreshold' not allowed/);
    expect(await attempt('networkPolicy.metricsFrom[0].podSelektor.app=x')).toMatch(/additional properties 'podSelektor' not allowed/);
    expect(await attempt('services.job.uses={kafka,redis}')).toMatch(/services\/job\/uses\/1': value must be one of/);
    expect(await attempt('mongodb.enabled=false')).toMatch(/set externalMongodb\.url or externalMongodb\.existingSecret/);
    expect(await attempt('ingress.enabled=true,ingress.tls.enabled=false')).toMatch(/TLS only/);
    expect(await attempt('services.gateway.replicas=3')).toBe('rendered');
  });

  it('every object level of values.schema.json refuses unknown keys', () => {
    const schema = JSON.parse(readRepoFile('charts/baret/values.schema.json')) as object;
    const open: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`));
      if (!node || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      if ('properties' in o && o.additionalProperties !== false) open.push(path);
      if (o.type === 'object' && !('properties' in o) && (o.additionalProperties === undefined || o.additionalProperties === true)) open.push(path);
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
    };
    walk(schema, '');
    expect(open).toEqual([]);
  });

  it('NOTES.txt tells how to reach the app (port-forward, or the Ingress host) and how to make the first admin', async () => {
    // helm template does not render NOTES.txt: a copy of the chart renders it into a ConfigMap.
    const copy = join(dir, 'chart-with-notes');
    cpSync(chart, copy, { recursive: true });
    cpSync(join(chart, 'templates', 'NOTES.txt'), join(copy, 'notes.txt'));
    writeFileSync(join(copy, 'templates', 'zz-notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ tpl (.Files.Get "notes.txt") . | quote }}\n');
    const notes = async (values: string[]) =>
      parseManifests(await helm(['template', 'rel', copy, '--namespace', 'baret', '--kube-version', KUBERNETES_VERSION, '--show-only', 'templates/zz-notes.yaml', ...values.flatMap((f) => ['-f', f])]))[0]!.data!.notes!;
    const plain = await notes([]);
    expect(plain).toContain('kubectl --namespace baret port-forward service/rel-baret-gateway 8080:8080');
    expect(plain).toContain('kubectl --namespace baret exec deploy/rel-baret-identity -- node bin/baret.mjs admin promote you@example.com');
    expect(plain).toContain('"rel-baret" (kept on upgrade and on uninstall)');
    const prod = await notes(VALUE_SETS.production);
    expect(prod).toContain('https://baret.example.com/');
    expect(prod).toContain('safety-lead@example.com');
    expect(await notes(VALUE_SETS.external)).toContain('from the Secret "baret-app"');
  });

  it('k8s/dev/baret.yaml is the chart rendered with the dev values, as k8s/dev/render.sh makes it', async () => {
    const fresh = await helm(['template', 'baret', chart, '--namespace', 'baret', '--kube-version', KUBERNETES_VERSION, '-f', join(repoRoot, 'k8s', 'dev', 'values.yaml'), '--set', 'secrets.existingSecret=baret-dev']);
    const committed = readRepoFile('k8s/dev/baret.yaml').replace(/^#[^\n]*\n/, '');
    expect(committed === fresh, 'k8s/dev/baret.yaml is stale: run bash k8s/dev/render.sh').toBe(true);
    expect(readRepoFile('k8s/dev/render.sh')).toContain('--set secrets.existingSecret=baret-dev');
  });

  it('kustomize builds k8s/dev into manifests kubeconform finds valid, all in the namespace baret, secrets left to the cluster', async () => {
    const { stdout } = await run(tool('kustomize'), ['build', join(repoRoot, 'k8s', 'dev')], { maxBuffer: 64 * 1024 * 1024 });
    const manifests = parseManifests(stdout) as (Manifest & { metadata: { namespace?: string } })[];
    const result = await kubeconform(stdout, dir);
    expect(result.problems).toEqual([]);
    expect(result.valid).toBe(manifests.length);
    for (const s of SERVICES) expect(manifests.some((m) => m.kind === 'Deployment' && m.metadata.name === `baret-${s}`), s).toBe(true);
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    for (const m of manifests.filter((x) => x.kind !== 'Namespace')) expect(m.metadata.namespace, `${m.kind}/${m.metadata.name}`).toBe('baret');
    const secretRefs = new Set(workloads(manifests).flatMap((w) => podSpecOf(w).containers.flatMap((c: any) => (c.env ?? []).map((e: any) => e.valueFrom?.secretKeyRef?.name).filter(Boolean))));
    expect([...secretRefs]).toEqual(['baret-dev']);
    const created = readRepoFile('k8s/dev/create-secrets.sh');
    const keys = new Set(workloads(manifests).flatMap((w) => podSpecOf(w).containers.flatMap((c: any) => (c.env ?? []).map((e: any) => e.valueFrom?.secretKeyRef?.key).filter(Boolean))));
    for (const k of keys) expect(created, `create-secrets.sh makes ${k}`).toContain(`--from-literal=${k}=`);
  });
});
