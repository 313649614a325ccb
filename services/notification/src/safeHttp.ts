import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Outgoing HTTP to addresses users give us (webhook URLs, push endpoints), guarded against SSRF:
 * a host that is, or resolves to, an address of any IANA special-purpose range (private, loopback,
 * link-local, CGNAT, multicast, NAT64, 6to4, Teredo …) or outside IPv6 global unicast is refused,
 * unless the operator allows private hosts (on-prem, NOTIFY_ALLOW_PRIVATE_HOSTS=true). The check runs on the address the socket actually connects to
 * (a `lookup` hook, so a DNS answer cannot change between check and use) and again on every
 * redirect.
 */

/**
 * The global unicast space of the IANA IPv6 Address Space registry (2000::/3). The rest of the
 * IPv6 space is reserved by the IETF, unique-local, link-local or multicast — and holds the
 * deprecated IPv4-compatible addresses (`::a.b.c.d`, ::/96) that no special-purpose entry names.
 */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an IP address is not a public unicast address: ipaddr.js names every range of the IANA
 * IPv4 and IPv6 special-purpose address registries (private, loopback, link-local, CGNAT,
 * documentation, benchmarking, AS112, AMT, 6to4, Teredo, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
 * SIIT ::ffff:0:0:0/96, ORCHID, segment routing …) and any of them is refused, whatever IPv4
 * address it may carry; an IPv6 address must also be global unicast. An IPv4-mapped address
 * (::ffff:a.b.c.d) is the IPv4 address the socket reaches, and judged as such.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  if (isIP(bare) === 0) return true; // not an address at all (nor one of the odd IPv4 spellings ipaddr.js accepts): refuse
  const ip = ipaddr.process(bare);
  if (ip.range() !== 'unicast') return true;
  return ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6);
}

export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';
  constructor(readonly host: string) {
    super(`${host} is a private, loopback or link-local address; requests to it are refused.`);
    this.name = 'BlockedAddressError';
  }
}

/** A `lookup` for sockets that fails when any address of the name is not public. */
export function guardedLookup(allowPrivate: boolean, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && bad) return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`) as NodeJS.ErrnoException, '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Checks a URL before any request: http(s) only, no credentials, and a literal IP must be public. */
export function checkTarget(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BlockedAddressError(url.href);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isIP(host) !== 0 ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) throw new BlockedAddressError(host);
}

export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SafeRequest {
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: Buffer | string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Redirects followed (each target checked again); default 3. */
  maxRedirects?: number;
  /** The DNS resolver (tests give their own names); default the system's. */
  resolve?: typeof dnsLookup;
  /** Ends the request at once when it aborts (the service is stopping). */
  signal?: AbortSignal;
}

const MAX_BODY = 64 * 1024;

/** One request with the SSRF guard, a total timeout, and at most 64 KiB of the answer kept. */
export async function safeFetch(target: string, req: SafeRequest): Promise<SafeResponse> {
  let url = new URL(target);
  for (let hop = 0; ; hop++) {
    req.signal?.throwIfAborted();
    checkTarget(url, req.allowPrivate);
    const res = await once(url, req);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location && hop < (req.maxRedirects ?? 3)) {
      url = new URL(location, url);
      continue;
    }
    return res;
  }
}

function once(url: URL, req: SafeRequest): Promise<SafeResponse> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    const r = send(
      url,
      {
        method: req.method,
        headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        lookup: guardedLookup(req.allowPrivate, req.resolve),
        // A fresh connection each time: a pooled socket would skip the address check.
        agent: false,
        timeout: req.timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_BODY) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => r.destroy(new Error(`no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
    r.on('timeout', () => r.destroy(new Error(`no answer within ${req.timeoutMs} ms`)));
    r.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    r.end(body);
  });
}
