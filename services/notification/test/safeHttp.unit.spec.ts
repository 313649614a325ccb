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
