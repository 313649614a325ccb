import { lookup, type LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError, isPrivateAddress, safeFetch } from '../src/safeHttp.js';

describe('SSRF guard', () => {
  it('tells private, loopback, link-local and other non-public addresses from public ones', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses every range of the IANA special-purpose registries, and IPv6 addresses that carry an IPv4 one', () => {
    const refused = [
      // IPv4 special-purpose registry
      '192.0.0.8', '192.0.0.170', '192.31.196.1', '192.52.193.1', '192.88.99.1', '192.175.48.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '240.0.0.1', '255.255.255.255',
      // IPv4 inside IPv6: compatible, SIIT (RFC 6145), NAT64 (RFC 6052, RFC 8215), 6to4, Teredo
      '::127.0.0.1', '::169.254.169.254', '::ffff:0:127.0.0.1', '::ffff:0:169.254.169.254', '64:ff9b::127.0.0.1', '64:ff9b::8.8.8.8', '64:ff9b:1::a9fe:a9fe',
      '2002:7f00:1::', '2002:a9fe:a9fe::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // other IPv6 special-purpose ranges, and space outside global unicast (2000::/3)
      '100::1', '2001:2::1', '2001:10::1', '2001:20::1', '2001:db8::1', '3fff::1', '5f00::1', 'fec0::1', 'ff02::1', '4000::1', '::2',
    ];
    for (const a of refused) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['2a00:1450:4001:80b::200e', '2001:4860:4860::8888', '1.1.1.1']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses a URL whose host is an IPv6 literal carrying a loopback or metadata address, before sending anything', async () => {
    const before = hits;
    const req = { method: 'POST' as const, headers: {}, body: '{}', timeoutMs: 5000, allowPrivate: false };
    for (const host of ['[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2002:a9fe:a9fe::]']) {
      await expect(safeFetch(`http://${host}:${port}/`, req), host).rejects.toBeInstanceOf(BlockedAddressError);
    }
    expect(hits).toBe(before);
  });

  let server: ReturnType<typeof createServer>;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') res.writeHead(302, { location: `http://169.254.169.254/latest/meta-data` }).end();
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // A name that resolves to loopback, as an attacker's DNS would answer for a webhook host.
  const resolve = ((host: string, options: object, cb: (e: Error | null, a: LookupAddress[]) => void) =>
    host === 'hooks.attacker.test' ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : lookup(host, options, cb as never)) as unknown as typeof lookup;

  it('refuses a loopback target, by address or by what its name resolves to, before sending anything', async () => {
    const before = hits;
    const req = { method: 'POST' as const, headers: {}, body: '{}', timeoutMs: 5000, allowPrivate: false, resolve };
    await expect(safeFetch(`http://127.0.0.1:${port}/`, req)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(safeFetch(`http://localhost:${port}/`, req)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(safeFetch(`http://[::ffff:127.0.0.1]:${port}/`, req)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(safeFetch(`http://hooks.attacker.test:${port}/`, req)).rejects.toThrow(/private, loopback or link-local/);
    expect(hits).toBe(before);
  });

  it('with private hosts allowed (on-prem) it reaches them, and checks every redirect target again', async () => {
    const ok = await safeFetch(`http://hooks.attacker.test:${port}/`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 5000, allowPrivate: true, resolve });
    expect(ok.status).toBe(200);
    // A redirect to a non-http(s) target is refused whatever the setting.
    const redirectServer = createServer((_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    await new Promise<void>((r) => redirectServer.listen(0, '127.0.0.1', r));
    try {
      await expect(
        safeFetch(`http://127.0.0.1:${(redirectServer.address() as AddressInfo).port}/`, { method: 'GET', headers: {}, timeoutMs: 5000, allowPrivate: true }),
      ).rejects.toBeInstanceOf(BlockedAddressError);
    } finally {
      await new Promise<void>((r) => redirectServer.close(() => r()));
    }
  });

  it('ends a request that is waiting for its answer when its signal aborts (the service is stopping)', async () => {
    let arrived!: () => void;
    const received = new Promise<void>((r) => (arrived = r));
    const silent = createServer(() => arrived()); // never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const stop = new AbortController();
      const request = safeFetch(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 600_000, allowPrivate: true, signal: stop.signal });
      await received;
      stop.abort();
      await expect(request).rejects.toMatchObject({ name: 'AbortError' });
      // One already stopped sends nothing.
      await expect(safeFetch(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {}, timeoutMs: 5000, allowPrivate: true, signal: stop.signal })).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
