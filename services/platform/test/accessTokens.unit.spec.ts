import { describe, expect, it } from 'vitest';
import { accessTokenKeys, AccessTokenVerifier, InvalidTokenError, type Jwks } from '../src/http/accessTokens.js';

const A = 'first-secret-first-secret-first-secret-01';
const B = 'second-secret-second-secret-second-secret';

describe('access tokens (EdDSA, keys by kid)', () => {
  it('derives the same key from the same secret (replicas, restarts) and another from another', () => {
    expect(accessTokenKeys(A).jwks).toEqual(accessTokenKeys(A).jwks);
    expect(accessTokenKeys(A).jwks.keys[0]!.kid).not.toBe(accessTokenKeys(B).jwks.keys[0]!.kid);
    expect(accessTokenKeys(B, A).jwks.keys.map((k) => k.kid)).toEqual([accessTokenKeys(B).jwks.keys[0]!.kid, accessTokenKeys(A).jwks.keys[0]!.kid]);
  });

  it('follows a rotation: an unknown kid fetches the set again (at most once a second); a key dropped from the set stops verifying', async () => {
    let now = 1_000_000;
    let set: Jwks = accessTokenKeys(A).jwks;
    let fetches = 0;
    const verifier = new AccessTokenVerifier(
      () => {
        fetches++;
        return set;
      },
      { now: () => now, refreshMs: 600_000 },
    );
    const old = accessTokenKeys(A).sign('u1', 3600);
    expect(await verifier.verify(old)).toEqual({ sub: 'u1', iat: expect.any(Number) as number });
    expect(fetches).toBe(1);

    // The signer rotates to B and publishes both: the new token's kid is fetched once.
    set = accessTokenKeys(B, A).jwks;
    const fresh = accessTokenKeys(B).sign('u2', 3600);
    now += 1_000;
    expect(await verifier.verify(fresh)).toMatchObject({ sub: 'u2' });
    expect(await verifier.verify(old)).toEqual({ sub: 'u1', iat: expect.any(Number) as number });
    expect(fetches).toBe(2);

    // A token of a key nobody publishes: refused, and the set is not fetched again within the second.
    const stranger = accessTokenKeys('a-stranger-secret-a-stranger-secret-0000').sign('u3', 3600);
    await expect(verifier.verify(stranger)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(verifier.verify(stranger)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(fetches).toBe(2);

    // A retired: after the periodic fetch, its tokens are refused even though they were verified before.
    set = accessTokenKeys(B).jwks;
    now += 600_001;
    await expect(verifier.verify(old)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(await verifier.verify(fresh)).toMatchObject({ sub: 'u2' });
  });

  it('refuses a remembered token once it expires', async () => {
    const real = Date.now();
    let now = real;
    const verifier = new AccessTokenVerifier(() => accessTokenKeys(A).jwks, { now: () => now });
    const token = accessTokenKeys(A).sign('u1', 60);
    expect(await verifier.verify(token)).toEqual({ sub: 'u1', iat: expect.any(Number) as number });
    now = real + 61_000;
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});
