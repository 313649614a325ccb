/**
 * The smoke cluster's DNS (scripts/k8s-smoke.ts): Kubernetes' service names, answered from the API
 * server, on UDP port 53 of the node's network namespace, where the kubelet points every pod
 * (clusterDNS). CoreDNS would do it with a Deployment, but no image can be pulled here and building
 * it is another long Go build; this answers what the chart's pods ask:
 *   <service>.<namespace>.svc.<domain>            A: the ClusterIP, or the endpoints of a headless service
 *   <hostname>.<service>.<namespace>.svc.<domain> A: that endpoint (a StatefulSet's pod)
 * AAAA of a known name: no data; any other name: NXDOMAIN (there is no upstream: no outside network).
 * It runs as a process of its own (node.ts starts this file): inside the smoke run's own process, every
 * synchronous kubectl or helm call (an exec, a rollout status) would leave the pods without DNS.
 */
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { pathToFileURL } from 'node:url';

export interface DnsOptions {
  apiserver: string;
  ca: string;
  cert: string;
  key: string;
  port: number;
  domain: string;
}

interface List {
  items: Array<{
    metadata: { name: string; namespace: string; labels?: Record<string, string> };
    spec?: { clusterIP?: string };
    addressType?: string;
    endpoints?: Array<{ addresses?: string[]; hostname?: string }>;
  }>;
}

function getJson(o: DnsOptions, path: string): Promise<List> {
  return new Promise((resolve, reject) => {
    const req = request(`${o.apiserver}${path}`, { ca: readFileSync(o.ca), cert: readFileSync(o.cert), key: readFileSync(o.key), timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as List) : reject(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${path}: timeout`)));
    req.end();
  });
}

/** name (lower case, no trailing dot) → IPv4 addresses */
async function records(o: DnsOptions): Promise<Map<string, string[]>> {
  const [services, slices] = await Promise.all([getJson(o, '/api/v1/services'), getJson(o, '/apis/discovery.k8s.io/v1/endpointslices')]);
  const map = new Map<string, string[]>();
  const add = (name: string, ip: string) => map.set(name, [...(map.get(name) ?? []), ip]);
  const headless = new Set<string>();
  for (const s of services.items) {
    const name = `${s.metadata.name}.${s.metadata.namespace}.svc.${o.domain}`;
    if (s.spec?.clusterIP && s.spec.clusterIP !== 'None') add(name, s.spec.clusterIP);
    else headless.add(name);
  }
  for (const slice of slices.items) {
    if (slice.addressType !== 'IPv4') continue;
    const svc = slice.metadata.labels?.['kubernetes.io/service-name'];
    if (!svc) continue;
    const name = `${svc}.${slice.metadata.namespace}.svc.${o.domain}`;
    for (const e of slice.endpoints ?? []) {
      const ip = e.addresses?.[0];
      if (!ip) continue;
      if (headless.has(name)) add(name, ip);
      if (e.hostname) add(`${e.hostname}.${name}`, ip);
    }
  }
  return map;
}

export function answer(query: Buffer, known: Map<string, string[]>, domain: string): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let i = 12;
  while (i < query.length && query[i] !== 0) {
    const len = query[i]!;
    if (len > 63) return null;
    labels.push(query.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += len + 1;
  }
  const qtype = query.readUInt16BE(i + 1);
  const question = query.subarray(12, i + 5);
  const name = labels.join('.').toLowerCase();
  const ips = known.get(name);
  const nx = !ips;
  const a = qtype === 1 && ips ? ips : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's opcode and RD, AA where the name is ours; RCODE 3 (NXDOMAIN) or 0
  const flags = 0x8000 | (query.readUInt16BE(2) & 0x7900) | (name.endsWith(domain) ? 0x0400 : 0) | (nx ? 3 : 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(a.length, 6);
  const answers = a.map((ip) => {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0);
    rr.writeUInt16BE(1, 2);
    rr.writeUInt16BE(1, 4);
    rr.writeUInt32BE(5, 6);
    rr.writeUInt16BE(4, 10);
    ip.split('.').forEach((part, k) => rr.writeUInt8(Number(part), 12 + k));
    return rr;
  });
  return Buffer.concat([header, question, ...answers]);
}

/** Starts answering; the records are fetched again every 2 s. */
export async function startClusterDns(o: DnsOptions, log: (text: string) => void): Promise<{ close: () => void }> {
  let known = new Map<string, string[]>();
  let lastError = '';
  const refresh = async () => {
    try {
      known = await records(o);
      lastError = '';
    } catch (e) {
      const message = (e as Error).message;
      if (message !== lastError) log(`cluster DNS: ${message}`);
      lastError = message;
    }
  };
  await refresh();
  const timer = setInterval(() => void refresh(), 2000);
  const socket: Socket = createSocket('udp4');
  socket.on('message', (msg, peer) => {
    const reply = answer(msg, known, o.domain);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(o.port, '0.0.0.0', () => resolve());
  });
  return {
    close: () => {
      clearInterval(timer);
      socket.close();
    },
  };
}

// node.ts: `tsx cluster-dns.ts '<DnsOptions as JSON>'`; stops on SIGTERM.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dns = await startClusterDns(JSON.parse(process.argv[2]!) as DnsOptions, (text) => void process.stdout.write(`${text}\n`));
  process.stdout.write('cluster DNS: answering\n');
  process.once('SIGTERM', () => {
    dns.close();
    process.exit(0);
  });
}
