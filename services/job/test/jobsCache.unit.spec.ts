import { describe, expect, it } from 'vitest';
import type { JobDoc } from '../src/readModels/jobs.js';
import { JobReadCache } from '../src/readModels/jobsCache.js';

/** The read cache's rules (docs/adr/0019), with a clock the test moves; the real-engine runs are in tests/job-read-cache.int.spec.ts. */
function setup(options: ConstructorParameters<typeof JobReadCache>[0] = {}) {
  let t = 1_000_000;
  const cache = new JobReadCache({ now: () => t, ...options });
  const loads: string[] = [];
  const loader = (name: string, items: unknown[]) => async () => {
    loads.push(name);
    return items;
  };
  return { cache, loads, loader, advance: (ms: number) => (t += ms) };
}

const doc = (id: string, userId: string): JobDoc => ({ id, user_id: userId, status: 'queued' }) as unknown as JobDoc;

describe('the job read cache', () => {
  it('keeps nothing until its projection has caught up, then answers a second read from memory', async () => {
    const { cache, loads, loader } = setup();
    await cache.list('u1', 'k', loader('a', [1]));
    await cache.list('u1', 'k', loader('b', [1]));
    expect(loads).toEqual(['a', 'b']);
    cache.caughtUp();
    await cache.list('u1', 'k', loader('c', [1]));
    expect(await cache.list('u1', 'k', loader('d', [2]))).toEqual([1]);
    expect(loads).toEqual(['a', 'b', 'c']);
  });

  it("drops a user's lists when an event of one of their jobs is applied, and only theirs", async () => {
    const { cache, loads, loader } = setup();
    cache.caughtUp();
    await cache.list('u1', 'k', loader('u1', ['mine']));
    await cache.list('u2', 'k', loader('u2', ['theirs']));
    cache.changed('job-x', ['u1']);
    expect(await cache.list('u1', 'k', loader('u1 again', ['mine, changed']))).toEqual(['mine, changed']);
    expect(await cache.list('u2', 'k', loader('never', []))).toEqual(['theirs']);
    expect(loads).toEqual(['u1', 'u2', 'u1 again']);
  });

  it('answers but does not keep a read during which its user changed (it may predate the change)', async () => {
    const { cache, loads } = setup();
    cache.caughtUp();
    let release!: () => void;
    const slow = cache.list('u1', 'k', async () => {
      loads.push('slow');
      await new Promise<void>((r) => (release = r));
      return ['old'];
    });
    await Promise.resolve();
    cache.changed('job-x', ['u1']);
    release();
    expect(await slow).toEqual(['old']);
    expect(await cache.list('u1', 'k', async () => (loads.push('fresh'), ['new']))).toEqual(['new']);
    expect(loads).toEqual(['slow', 'fresh']);
  });

  it('is not used once its projection has not caught up for a while, and starts from nothing when it is back', async () => {
    const { cache, loads, loader, advance } = setup({ liveMs: 3_000 });
    cache.caughtUp();
    await cache.list('u1', 'k', loader('a', [1]));
    advance(3_001);
    expect(cache.live).toBe(false);
    await cache.list('u1', 'k', loader('b', [2]));
    expect(cache.size.items).toBe(0);
    cache.caughtUp();
    expect(await cache.list('u1', 'k', loader('c', [3]))).toEqual([3]);
    expect(loads).toEqual(['a', 'b', 'c']);
  });

  it('drops everything when its projection runner stops, and keeps nothing until it has caught up again', async () => {
    const { cache, loads, loader } = setup();
    cache.caughtUp();
    await cache.list('u1', 'k', loader('a', [1]));
    cache.stopped();
    expect(cache.size).toEqual({ users: 0, items: 0, jobs: 0 });
    await cache.list('u1', 'k', loader('b', [2]));
    await cache.list('u1', 'k', loader('c', [3]));
    expect(loads).toEqual(['a', 'b', 'c']);
  });

  it('expires entries after their time to live', async () => {
    const { cache, loads, loader, advance } = setup({ ttlMs: 60_000, liveMs: 120_000 });
    cache.caughtUp();
    await cache.list('u1', 'k', loader('a', [1]));
    advance(60_001);
    cache.caughtUp();
    await cache.list('u1', 'k', loader('b', [1]));
    expect(loads).toEqual(['a', 'b']);
  });

  it('holds at most maxItems list items, the least recently used user going first', async () => {
    const { cache, loader, loads } = setup({ maxItems: 4 });
    cache.caughtUp();
    await cache.list('u1', 'k', loader('u1', [1, 2]));
    await cache.list('u2', 'k', loader('u2', [1, 2]));
    await cache.list('u1', 'k', loader('u1 hit', [])); // u1 used last
    await cache.list('u3', 'k', loader('u3', [1]));
    expect(cache.size.items).toBeLessThanOrEqual(4);
    await cache.list('u1', 'k', loader('u1 hit', []));
    await cache.list('u2', 'k', loader('u2 again', [1, 2]));
    expect(loads).toEqual(['u1', 'u2', 'u3', 'u2 again']);
  });

  it('serves a kept job only where the caller may use it, and drops it when the job changes', async () => {
    const { cache } = setup();
    cache.caughtUp();
    let reads = 0;
    const load = async () => (reads++, doc('j1', 'owner'));
    const owner = (d: JobDoc) => d.user_id === 'owner';
    await cache.job('j1', load, owner);
    await cache.job('j1', load, owner);
    expect(reads).toBe(1);
    // Someone else (a manager, an admin): read afresh, and not kept for them.
    await cache.job('j1', load, (d) => d.user_id === 'manager');
    expect(reads).toBe(2);
    cache.changed('j1', ['owner']);
    await cache.job('j1', load, owner);
    expect(reads).toBe(3);
  });

  it('keeps nothing with maxItems 0 (READ_CACHE_ITEMS=0)', async () => {
    const { cache, loads, loader } = setup({ maxItems: 0 });
    cache.caughtUp();
    await cache.list('u1', 'k', loader('a', [1]));
    await cache.list('u1', 'k', loader('b', [1]));
    expect(loads).toEqual(['a', 'b']);
  });
});
