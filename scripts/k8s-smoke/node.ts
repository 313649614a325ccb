/**
 * The one-node cluster of `npm run k8s:smoke`, run INSIDE the network, mount and PID namespaces that
 * scripts/k8s-smoke.ts makes with unshare: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, containerd (runc, Debian's CNI bridge plugin), kubelet, kube-proxy (iptables) and
 * the cluster DNS (cluster-dns.ts). Every file lives in the run's scratch folder; the network is the
 * namespace's own: loopback, a dummy interface holding the node's address, and the pods' bridge.
 * Nothing leaves the namespace (no link to the host's network), and when the namespace's first
 * process ends the kernel ends every process, mount, interface and iptables rule in it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfig, makePki, type Pki } from './pki.js';

export const NODE_NAME = 'baret-smoke-node';
export const NODE_IP = '10.254.0.1';
export const SERVICE_CIDR = '10.96.0.0/16';
export const SERVICE_IP = '10.96.0.1';
export const POD_CIDR = '10.244.0.0/16';
export const POD_SUBNET = '10.244.0.0/24';
export const POD_GATEWAY = '10.244.0.1';
/** The kubelet's cgroups, in every hierarchy: removed by the script after the run. */
export const CGROUP_ROOT = 'baret-k8s-smoke';
export const PAUSE_IMAGE = 'localhost/baret-k8s-pause:3.10';

export interface NodeOptions {
  scratch: string;
  bin: string;
  say: (text: string) => void;
}

const sh = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error?.message}`);
  return r.stdout;
};

export class Node {
  readonly pki: Pki;
  readonly kubeconfig: string;
  readonly logs: string;
  readonly containerdSock: string;
  private readonly procs = new Map<string, ChildProcess>();
  private stopping = false;
  /** Processes that ended while they should run: name → exit code and the end of their log. */
  readonly died: string[] = [];

  constructor(private readonly o: NodeOptions) {
    this.logs = join(o.scratch, 'logs');
    mkdirSync(this.logs, { recursive: true });
    this.pki = makePki(join(o.scratch, 'pki'), NODE_IP, SERVICE_IP, NODE_NAME);
    this.kubeconfig = join(o.scratch, 'admin.kubeconfig');
    writeFileSync(this.kubeconfig, kubeconfig(this.pki, 'https://127.0.0.1:6443'));
    this.containerdSock = join(o.scratch, 'containerd', 'containerd.sock');
  }

  /** The namespace's own network and mounts: loopback, the node's address, private /run and /var/lib/cni. */
  prepareNamespace(): void {
    sh('mount', ['--make-rshared', '/']);
    for (const dir of ['/run', '/var/lib/cni']) {
      mkdirSync(dir, { recursive: true });
      sh('mount', ['-t', 'tmpfs', '-o', 'mode=755', 'tmpfs', dir]);
    }
    // The kubelet sets these kernel-wide settings to its liking (kernel.panic=10, panic_on_oops=1, ...)
    // where they differ: in this mount namespace it finds files already holding its values, and the
    // host's settings stay as they are.
    const tunables = { 'vm/overcommit_memory': 1, 'vm/panic_on_oom': 0, 'kernel/panic': 10, 'kernel/panic_on_oops': 1, 'kernel/keys/root_maxkeys': 1000000, 'kernel/keys/root_maxbytes': 25000000 };
    mkdirSync(join(this.o.scratch, 'sysctl'), { recursive: true });
    for (const [key, value] of Object.entries(tunables)) {
      const file = join(this.o.scratch, 'sysctl', key.replace(/\//g, '.'));
      writeFileSync(file, `${value}\n`);
      sh('mount', ['--bind', file, `/proc/sys/${key}`]);
    }
    sh('ip', ['link', 'set', 'lo', 'up']);
    // The node's interface: one end of a veth pair whose other end stays in this namespace too (no
    // dummy interfaces in this kernel). Every address not on this node ends there and is dropped:
    // nothing leaves the namespace.
    sh('ip', ['link', 'add', 'baret0', 'type', 'veth', 'peer', 'name', 'baret1']);
    sh('ip', ['addr', 'add', `${NODE_IP}/32`, 'dev', 'baret0']);
    sh('ip', ['link', 'set', 'baret0', 'up']);
    sh('ip', ['link', 'set', 'baret1', 'up']);
    sh('ip', ['route', 'add', 'default', 'dev', 'baret0']);
    writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
    writeFileSync('/proc/sys/net/ipv4/conf/baret1/forwarding', '0');
  }

  private start(name: string, cmd: string, args: string[]): ChildProcess {
    const log = openSync(join(this.logs, `${name}.log`), 'a');
    const child = spawn(cmd, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    child.on('error', (e) => {
      this.procs.delete(name);
      this.died.push(`${name} did not start: ${e.message}`);
    });
    child.on('exit', (code, signal) => {
      this.procs.delete(name);
      if (!this.stopping) this.died.push(`${name} exited with ${code ?? signal}:\n${this.tail(name, 25)}`);
    });
    this.procs.set(name, child);
    return child;
  }

  tail(name: string, lines: number): string {
    try {
      return readFileSync(join(this.logs, `${name}.log`), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  private check(): void {
    if (this.died.length > 0) throw new Error(this.died.join('\n\n'));
  }

  private async until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.check();
      if (await ok()) return;
      if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  get kubectlPath(): string {
    return join(this.o.bin, 'kubectl');
  }

  kubectl(args: string[], input?: string): { status: number; out: string; err: string } {
    const r = spawnSync(this.kubectlPath, ['--kubeconfig', this.kubeconfig, ...args], { encoding: 'utf8', input, timeout: 120_000 });
    return { status: r.status ?? 1, out: r.stdout ?? '', err: r.stderr ?? r.error?.message ?? '' };
  }

  async controlPlane(): Promise<void> {
    const { scratch, bin } = this.o;
    const p = this.pki;
    this.start('etcd', 'etcd', [
      '--name=smoke',
      `--data-dir=${join(scratch, 'etcd')}`,
      '--listen-client-urls=http://127.0.0.1:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=smoke=http://127.0.0.1:2380',
      '--unsafe-no-fsync', // a throwaway cluster on a busy shared disk
      '--log-level=warn',
    ]);
    this.start('kube-apiserver', join(bin, 'kube-apiserver'), [
      '--etcd-servers=http://127.0.0.1:2379',
      '--bind-address=0.0.0.0',
      `--advertise-address=${NODE_IP}`,
      '--secure-port=6443',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      `--client-ca-file=${p.ca}`,
      `--tls-cert-file=${p.apiserverCert}`,
      `--tls-private-key-file=${p.apiserverKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${p.saPub}`,
      `--service-account-signing-key-file=${p.saKey}`,
      '--authorization-mode=Node,RBAC',
      `--kubelet-client-certificate=${p.adminCert}`,
      `--kubelet-client-key=${p.adminKey}`,
      `--kubelet-certificate-authority=${p.ca}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--enable-admission-plugins=NodeRestriction',
      '--profiling=false',
    ]);
    await this.until('the API server', () => this.kubectl(['get', '--raw', '/readyz']).status === 0, 180_000);
    const k = this.kubeconfig;
    this.start('kube-controller-manager', join(bin, 'kube-controller-manager'), [
      `--kubeconfig=${k}`,
      `--authentication-kubeconfig=${k}`,
      `--authorization-kubeconfig=${k}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--service-account-private-key-file=${p.saKey}`,
      `--root-ca-file=${p.ca}`,
      `--cluster-signing-cert-file=${p.ca}`,
      `--cluster-signing-key-file=${p.caKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--use-service-account-credentials=false',
      '--profiling=false',
    ]);
    this.start('kube-scheduler', join(bin, 'kube-scheduler'), [
      `--kubeconfig=${k}`,
      `--authentication-kubeconfig=${k}`,
      `--authorization-kubeconfig=${k}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--profiling=false',
    ]);
    await this.until('the default service account', () => this.kubectl(['get', 'serviceaccount', 'default', '-n', 'default']).status === 0, 120_000);
  }

  async containerd(): Promise<void> {
    const dir = join(this.o.scratch, 'containerd');
    const cni = join(this.o.scratch, 'cni');
    mkdirSync(dir, { recursive: true });
    mkdirSync(cni, { recursive: true });
    writeFileSync(
      join(cni, '10-baret-smoke.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'baret-smoke',
        plugins: [
          {
            type: 'bridge',
            bridge: 'cni0',
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: { type: 'host-local', ranges: [[{ subnet: POD_SUBNET, gateway: POD_GATEWAY }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: join(this.o.scratch, 'cni-ipam') },
          },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      }),
    );
    const config = [
      'version = 2',
      `root = "${join(dir, 'root')}"`,
      `state = "${join(dir, 'state')}"`,
      '[grpc]',
      `  address = "${this.containerdSock}"`,
      '[plugins."io.containerd.internal.v1.opt"]',
      `  path = "${join(dir, 'opt')}"`,
      '[plugins."io.containerd.grpc.v1.cri"]',
      `  sandbox_image = "${PAUSE_IMAGE}"`,
      '  stream_server_address = "127.0.0.1"',
      // No CAP_SYS_RESOURCE here (the sandbox this machine runs in): an oom_score_adj below our own
      // (pod sandboxes -998) fails in runc ("can't get final child's PID from pipe: EOF"); clamp it.
      '  restrict_oom_score_adj = true',
      '  [plugins."io.containerd.grpc.v1.cri".containerd]',
      '    snapshotter = "overlayfs"',
      '    default_runtime_name = "runc"',
      '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
      '      runtime_type = "io.containerd.runc.v2"',
      '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
      '        SystemdCgroup = false',
      '  [plugins."io.containerd.grpc.v1.cri".cni]',
      '    bin_dir = "/usr/lib/cni"',
      `    conf_dir = "${cni}"`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'config.toml'), config);
    this.start('containerd', 'containerd', ['--config', join(dir, 'config.toml')]);
    await this.until('containerd', () => spawnSync('ctr', ['--address', this.containerdSock, 'version'], { stdio: 'ignore' }).status === 0, 60_000);
  }

  /** Imports an image archive (podman save) into the namespace Kubernetes uses. */
  importImages(archive: string): void {
    const r = spawnSync('ctr', ['--address', this.containerdSock, '-n', 'k8s.io', 'images', 'import', archive], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ctr images import ${archive}: ${r.stderr}`);
  }

  async kubelet(labels: string[]): Promise<void> {
    const { scratch, bin } = this.o;
    const p = this.pki;
    const resolv = join(scratch, 'resolv.conf');
    writeFileSync(resolv, `nameserver ${POD_GATEWAY}\n`);
    const config = {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: p.ca } },
      authorization: { mode: 'Webhook' },
      cgroupDriver: 'cgroupfs',
      cgroupRoot: `/${CGROUP_ROOT}`,
      failCgroupV1: false,
      clusterDNS: [POD_GATEWAY],
      clusterDomain: 'cluster.local',
      resolvConf: resolv,
      containerRuntimeEndpoint: `unix://${this.containerdSock}`,
      tlsCertFile: p.kubeletCert,
      tlsPrivateKeyFile: p.kubeletKey,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      failSwapOn: false,
      serializeImagePulls: false,
      // The images were imported, none can be pulled again: never collect them.
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      // The disk is shared with other work: evict only when it is really full.
      evictionHard: { 'memory.available': '200Mi', 'nodefs.available': '2%', 'imagefs.available': '2%', 'nodefs.inodesFree': '2%' },
      maxPods: 60,
    };
    // The kubelet's cgroup root must exist in every hierarchy (cgroup v1 here), cpuset's with the parent's CPUs and memory nodes.
    for (const hierarchy of readdirSync('/sys/fs/cgroup')) {
      const dir = join('/sys/fs/cgroup', hierarchy, CGROUP_ROOT);
      if (!existsSync(join('/sys/fs/cgroup', hierarchy, 'cgroup.procs'))) continue;
      mkdirSync(dir, { recursive: true });
      if (hierarchy === 'cpuset')
        for (const f of ['cpuset.cpus', 'cpuset.mems']) writeFileSync(join(dir, f), readFileSync(join('/sys/fs/cgroup', hierarchy, f), 'utf8').trim() || '0');
    }
    const file = join(scratch, 'kubelet.json');
    writeFileSync(file, JSON.stringify(config));
    this.start('kubelet', join(bin, 'kubelet'), [
      `--config=${file}`,
      `--kubeconfig=${this.kubeconfig}`,
      `--root-dir=${join(scratch, 'kubelet')}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_IP}`,
      `--node-labels=${labels.join(',')}`,
      '--v=1',
    ]);
    const proxyConfig = join(scratch, 'kube-proxy.json');
    writeFileSync(
      proxyConfig,
      JSON.stringify({
        apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
        kind: 'KubeProxyConfiguration',
        clientConnection: { kubeconfig: this.kubeconfig },
        mode: 'iptables',
        clusterCIDR: POD_CIDR,
        hostnameOverride: NODE_NAME,
        // pod → service → a pod on the same bridge: without masquerading, the answer is bridged past conntrack
        iptables: { masqueradeAll: true },
        // no kernel-wide conntrack settings (the table size and timeouts stay the host's)
        conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
        metricsBindAddress: '127.0.0.1:10249',
        healthzBindAddress: '127.0.0.1:10256',
      }),
    );
    this.start('kube-proxy', join(bin, 'kube-proxy'), [`--config=${proxyConfig}`]);
    const dnsOptions = { apiserver: 'https://127.0.0.1:6443', ca: p.ca, cert: p.adminCert, key: p.adminKey, port: 53, domain: 'cluster.local' };
    this.start('cluster-dns', join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'tsx'), [join(import.meta.dirname, 'cluster-dns.ts'), JSON.stringify(dnsOptions)]);
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers(['127.0.0.1']); // it listens on every address; the pods' bridge comes with the first pod
    await this.until('the cluster DNS', () => resolver.resolve4('kubernetes.default.svc.cluster.local').then((a) => a.includes(SERVICE_IP), () => false), 60_000);
    await this.until(
      'the node Ready',
      () => {
        const r = this.kubectl(['get', 'node', NODE_NAME, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
        return r.status === 0 && r.out.trim() === 'True';
      },
      240_000,
    );
  }

  /** Processes still running (the run watches them between steps). */
  assertAlive(): void {
    this.check();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // the kubelet first (it would restart what containerd stops), then the runtime, then the control plane
    for (const name of ['cluster-dns', 'kube-proxy', 'kubelet', 'containerd', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd']) {
      const child = this.procs.get(name);
      if (!child) continue;
      child.kill('SIGTERM');
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 10_000))]);
      if (this.procs.has(name)) child.kill('SIGKILL');
    }
  }
}
