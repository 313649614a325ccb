import { describe, expect, it } from 'vitest';
import { PrincipalCache } from '../src/http/principalCache.js';
import type { AuthResolvers } from '../src/http/auth.js';

/** Identity's answers, counted; `hold` delays the next lookup until released. */
function identity() {
  const calls = { byId: 0, byKey: 0 };
  let hold: Promise<void> | null = null;
  const users = new Map([['u1', { userId: 'u1', email: 'a@example.com', fullName: null, isAdmin: true }]]);
  const resolvers: AuthResolvers = {
    isApiKey: (t) => t.startsWith('baret_'),
    userById: async (id) => {
      calls.byId++;
      if (hold) await hold;
      return users.get(id) ?? null;
    },
    userByApiKey: async (t) => {
      calls.byKey++;
      return t === 'baret_k1' ? (users.get('u1') ?? null) : null;
    },
  };
  return { resolvers, calls, users, holdNext: (p: Promise<void>) => void (hold = p), release: () => void (hold = null) };
}

describe('PrincipalCache', () => {
  it('asks identity every time until the change stream is live, then once per user and key', async () => {
    const id = identity();
    const cache = new PrincipalCache(id.resolvers);
    await cache.userById('u1');
    await cache.userById('u1');
    expect(id.calls.byId).toBe(2);
    cache.setLive(true);
    for (let i = 0; i < 5; i++) {
      await cache.userById('u1');
      await cache.userByApiKey('baret_k1');
    }
    expect(id.calls).toEqual({ byId: 3, byKey: 1 });
  });

  it("forgets a user's principal and API keys when identity announces a change, and everything when the stream is lost", async () => {
    const id = identity();
    const cache = new PrincipalCache(id.resolvers);
    cache.setLive(true);
    expect((await cache.userById('u1'))?.isAdmin).toBe(true);
    await cache.userByApiKey('baret_k1');
    id.users.set('u1', { ...id.users.get('u1')!, isAdmin: false });
    cache.invalidate('u1');
    expect((await cache.userById('u1'))?.isAdmin).toBe(false);
    expect((await cache.userByApiKey('baret_k1'))?.isAdmin).toBe(false);
    cache.setLive(false);
    id.users.delete('u1');
    expect(await cache.userById('u1')).toBeNull();
  });

  it('does not remember an answer that a change overtook while identity was answering', async () => {
    const id = identity();
    const cache = new PrincipalCache(id.resolvers);
    cache.setLive(true);
    let release!: () => void;
    id.holdNext(new Promise<void>((r) => (release = r)));
    const pending = cache.userById('u1');
    cache.invalidate('u1'); // e.g. the admin right revoked while the lookup was in flight
    id.release();
    release();
    await pending;
    await cache.userById('u1');
    expect(id.calls.byId).toBe(2);
  });

  it('expires entries after the TTL even without a change', async () => {
    let now = 0;
    const id = identity();
    const cache = new PrincipalCache(id.resolvers, { ttlMs: 1000, now: () => now });
    cache.setLive(true);
    await cache.userById('u1');
    now = 999;
    await cache.userById('u1');
    now = 2000;
    await cache.userById('u1');
    expect(id.calls.byId).toBe(2);
  });
});
