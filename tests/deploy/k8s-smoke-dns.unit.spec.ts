/**
 * The smoke cluster's DNS (scripts/k8s-smoke/cluster-dns.ts): the answers the chart's pods get for
 * the names they look up, read by a real resolver (Node's c-ares) from a UDP server answering with
 * `answer`.
 */
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer } from '../../scripts/k8s-smoke/cluster-dns.js';

const known = new Map([
  ['baret-gateway.baret.svc.cluster.local', ['10.96.12.34']],
  ['baret-kafka.baret.svc.cluster.local', ['10.244.0.7', '10.244.0.8']],
]);
const server = createSocket('udp4');
const resolver = new Resolver({ timeout: 2000, tries: 1 });

beforeAll(async () => {
  server.on('message', (msg, peer) => {
    const reply = answer(msg, known, 'cluster.local');
    if (reply) server.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', () => resolve()));
  resolver.setServers([`127.0.0.1:${server.address().port}`]);
});
afterAll(() => server.close());

describe('the smoke cluster DNS', () => {
  it("answers a Service's ClusterIP, and every endpoint of a headless Service", async () => {
    expect(await resolver.resolve4('baret-gateway.baret.svc.cluster.local')).toEqual(['10.96.12.34']);
    expect((await resolver.resolve4('BARET-KAFKA.baret.svc.cluster.local')).sort()).toEqual(['10.244.0.7', '10.244.0.8']);
  });

  it('says NXDOMAIN for a name it does not know, and no IPv6 data for one it knows', async () => {
    await expect(resolver.resolve4('baret-nothing.baret.svc.cluster.local')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolve6('baret-gateway.baret.svc.cluster.local')).rejects.toMatchObject({ code: 'ENODATA' });
  });
});
