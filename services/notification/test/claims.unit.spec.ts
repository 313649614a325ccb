import { openSqlite, SqliteDocumentStore } from '@baret/platform';
import { describe, expect, it } from 'vitest';
import { createClaims, type ClaimDoc } from '../src/claims.js';

describe('claims', () => {
  const setup = () => {
    const col = new SqliteDocumentStore(openSqlite(':memory:')).collection<ClaimDoc>('claims');
    let t = 1_000_000;
    const now = () => t;
    return { col, a: createClaims(col, { owner: 'a', leaseMs: 60_000, now }), b: createClaims(col, { owner: 'b', leaseMs: 60_000, now }), later: (ms: number) => (t += ms) };
  };

  it('a send given up by its holder (cut off by a stop) can be claimed by another process at once', async () => {
    const { a, b } = setup();
    expect(await a.claim('webhook:d1:1')).toBe(true);
    expect(await b.claim('webhook:d1:1')).toBe(false);
    await b.release('webhook:d1:1'); // not b's to give up
    expect(await b.claim('webhook:d1:1')).toBe(false);
    await a.release('webhook:d1:1');
    expect(await b.claim('webhook:d1:1')).toBe(true);
    expect(await a.claim('webhook:d1:1')).toBe(false);
  });

  it('gives up only its own newest claim, and after that only one process takes the send, an earlier holder too', async () => {
    const { col, a, b, later } = setup();
    expect(await a.claim('mail:e1')).toBe(true);
    later(61_000); // a's lease is over: b takes the next generation
    expect(await b.claim('mail:e1')).toBe(true);
    await a.release('mail:e1');
    expect(await col.get('mail:e1#1')).toMatchObject({ owner: 'b' });
    await b.release('mail:e1');
    expect(await col.get('mail:e1#1')).toMatchObject({ owner: '', lease_until: 0 });
    // Both a (which held generation 0) and b (which gave up generation 1) want it again: one gets it.
    const [x, y] = await Promise.all([a.claim('mail:e1'), b.claim('mail:e1')]);
    expect([x, y].filter(Boolean)).toHaveLength(1);
  });
});
