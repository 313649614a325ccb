/**
 * The fast gateway of the distributed run (issue 27, docs/adr/0019), on the real engines with every
 * service its own process: access tokens verified at the gateway with identity's public keys,
 * principals cached there and dropped when identity announces a change, key rotation at identity.
 */
import { tmpdir } from 'node:os';
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEngines, startDistributedStack, type DistributedStack } from './helpers/distributed.js';
import { api } from './helpers/process.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('gateway auth end-to-end', ok, engine));

/** How many requests identity answered on one internal route, from its /metrics. */
async function identityCalls(stack: DistributedStack, route: string): Promise<number> {
  const text = await (await fetch(`${stack.env.IDENTITY_URL}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('baret_http_request_duration_seconds_count{') && line.includes(`route="${route}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe.skipIf(!installed)('the distributed gateway: tokens verified locally, principals cached until identity says otherwise', () => {
  let stack: DistributedStack;
  let gateway: string;
  const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
  const login = async (email: string) => (await api<{ access_token: string }>(gateway, '/auth/login', json({ email, password: 'correct horse battery' }))).body.access_token;
  const jobs = async (credential: string) => (await api(gateway, '/jobs', { token: credential })).status;

  beforeAll(async () => {
    stack = await startDistributedStack({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEB_DIST_DIR: tmpdir() } });
    gateway = stack.gateway;
  }, 300_000);
  afterAll(async () => stack?.close());

  it('asks identity once per user and key, and a deleted API key stops working within 1 s', async () => {
    expect((await api(gateway, '/auth/register', json({ email: 'crew@example.com', password: 'correct horse battery' }))).status).toBe(201);
    const token = await login('crew@example.com');
    const created = await api<{ id: string; token: string }>(gateway, '/auth/tokens', { ...json({ name: 'truck 7' }), token });
    expect(created.status).toBe(201);
    const key = created.body.token;

    // The change stream is followed once the gateway is up; from then on, repeated requests are answered
    // from the cache: 40 requests each, identity asked about the key and the user a few times at most.
    await expect.poll(async () => (await jobs(key)) === 200 && (await jobs(token)) === 200, { timeout: 30_000 }).toBe(true);
    const before = { key: await identityCalls(stack, '/internal/principals/by-api-key'), user: await identityCalls(stack, '/internal/principals/:id') };
    for (let i = 0; i < 40; i++) {
      expect(await jobs(key)).toBe(200);
      expect(await jobs(token)).toBe(200);
    }
    expect((await identityCalls(stack, '/internal/principals/by-api-key')) - before.key).toBeLessThanOrEqual(2);
    expect((await identityCalls(stack, '/internal/principals/:id')) - before.user).toBeLessThanOrEqual(2);
    // Tokens are verified with identity's public keys, fetched once, not per request.
    expect(await identityCalls(stack, '/internal/jwks')).toBeLessThanOrEqual(3);

    // The key is deleted: the gateway's cached principal is dropped as identity applies the event.
    const deleted = await api(gateway, `/auth/tokens/${created.body.id}`, { method: 'DELETE', token });
    expect(deleted.status).toBe(204);
    const t0 = performance.now();
    let status = await jobs(key);
    while (status === 200 && performance.now() - t0 < 5_000) status = await jobs(key);
    const elapsed = performance.now() - t0;
    expect(status).toBe(401);
    expect(elapsed).toBeLessThan(1_000);
    // The user's own token is not affected.
    expect(await jobs(token)).toBe(200);
  }, 120_000);

  it("keeps tokens valid across a rotation of identity's key, and verifies the new key's tokens at once", async () => {
    expect((await api(gateway, '/auth/register', json({ email: 'rotation@example.com', password: 'correct horse battery' }))).status).toBe(201);
    const old = await login('rotation@example.com');
    expect(await jobs(old)).toBe(200);

    // Identity restarts with a new secret, publishing the previous one's key too.
    await stack.stop('identity');
    stack.env.JWT_PREVIOUS_SECRET = stack.env.JWT_SECRET!;
    stack.env.JWT_SECRET = 'rotated-distributed-jwt-secret-0123456789abcdef';
    await stack.start('identity');

    const fresh = await login('rotation@example.com');
    expect(fresh.split('.')[0]).not.toBe(old.split('.')[0]); // another key id in the header
    await expect.poll(() => jobs(fresh), { timeout: 15_000 }).toBe(200);
    expect(await jobs(old)).toBe(200);

    // The previous key retired: identity publishes only the new one; the gateway follows once identity is back.
    await stack.stop('identity');
    delete stack.env.JWT_PREVIOUS_SECRET;
    await stack.start('identity');
    await expect.poll(() => jobs(old), { timeout: 15_000 }).toBe(401);
    expect(await jobs(fresh)).toBe(200);
  }, 180_000);
});
