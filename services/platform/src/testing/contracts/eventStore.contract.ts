import { describe, expect, it } from 'vitest';
import { ConcurrencyError } from '../../errors.js';
import type { EventStore, RecordedEvent } from '../../ports/eventStore.js';

export interface EventStoreHarness {
  store: EventStore;
  /** Close this instance and open a new one on the same data, as a restarted process would. */
  restart(): Promise<EventStore>;
  dispose(): Promise<void>;
}

const ev = (type: string, n: number) => ({ type, data: { n } });

async function take(iter: AsyncIterable<RecordedEvent>, count: number): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  if (count === 0) return out;
  for await (const e of iter) {
    out.push(e);
    if (out.length >= count) break;
  }
  return out;
}

/** Resolves once `check` holds (polled every 10 ms); fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Options of {@link eventStoreContract}. */
export interface EventStoreContractOptions {
  /** The adapter tells a subscriber when it has handed over every stored event (`onCaughtUp`; PostgreSQL and SQLite do, KurrentDB does not). */
  caughtUp?: boolean;
  /**
   * For an adapter whose subscribers wait for a wake-up and poll as a safety net (PostgreSQL,
   * SQLite): a fresh store whose poll is `pollMs`.
   */
  polling?: (pollMs: number) => Promise<{ store: EventStore; dispose(): Promise<void> }>;
}

/** Runs a test on a fresh harness and disposes of it afterwards. */
type WithHarness = (fn: (h: EventStoreHarness) => Promise<void>) => () => Promise<void>;

/** Appending and reading a stream: revisions, optimistic concurrency, idempotent retries. */
function appendTests(withHarness: WithHarness): void {
  it('appends to a new stream and reads the events back in order with revisions', withHarness(async ({ store }) => {
    const r = await store.appendToStream('job-a', [ev('a', 1), ev('b', 2)], { expectedRevision: 'no_stream' });
    expect(r.nextExpectedRevision).toBe(1);
    const events = await store.readStream('job-a');
    expect(events.map((e) => [e.type, e.revision, e.data])).toEqual([
      ['a', 0, { n: 1 }],
      ['b', 1, { n: 2 }],
    ]);
    expect(events[0]!.streamId).toBe('job-a');
    expect(events[0]!.createdAt).toBeInstanceOf(Date);
    expect(events[1]!.position).toBeGreaterThan(events[0]!.position);
  }));

  it('reads a stream that does not exist as empty', withHarness(async ({ store }) => {
    expect(await store.readStream('job-missing')).toEqual([]);
  }));

  it('rejects an append whose expected revision is stale with a ConcurrencyError', withHarness(async ({ store }) => {
    await store.appendToStream('job-b', [ev('a', 1)], { expectedRevision: 'no_stream' });
    await expect(store.appendToStream('job-b', [ev('b', 2)], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(store.appendToStream('job-b', [ev('b', 2)], { expectedRevision: 5 })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(store.appendToStream('job-none', [ev('b', 2)], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await store.appendToStream('job-b', [ev('b', 2)], { expectedRevision: 0 });
    expect((await store.readStream('job-b')).map((e) => e.type)).toEqual(['a', 'b']);
  }));

  it('lets exactly one of two writers at the same revision win', withHarness(async ({ store }) => {
    await store.appendToStream('job-c', [ev('a', 1)]);
    const results = await Promise.allSettled([
      store.appendToStream('job-c', [ev('x', 1)], { expectedRevision: 0 }),
      store.appendToStream('job-c', [ev('y', 1)], { expectedRevision: 0 }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await store.readStream('job-c')).length).toBe(2);
  }));

  it('treats a retried append with the same event ids as done once', withHarness(async ({ store }) => {
    const events = [{ id: '6f1c7f0e-4a57-4c1e-9a43-1d1f2a3b4c5d', type: 'a', data: { n: 1 } }];
    await store.appendToStream('job-d', events, { expectedRevision: 'no_stream' });
    await store.appendToStream('job-d', events, { expectedRevision: 'no_stream' });
    expect(await store.readStream('job-d')).toHaveLength(1);
  }));
}

/** Subscribing to all events: catching up, following live appends, wake-ups and caught-up marks. */
function subscriptionTests(withHarness: WithHarness, options: EventStoreContractOptions): void {
  it('subscribes to all events: catches up, then follows live appends', withHarness(async ({ store }) => {
    await store.appendToStream('job-e', [ev('a', 1), ev('b', 2)]);
    await store.appendToStream('user-e', [ev('c', 3)]);
    const controller = new AbortController();
    const iter = store.subscribeToAll({ signal: controller.signal })[Symbol.asyncIterator]();
    const seen: RecordedEvent[] = [];
    for (let i = 0; i < 3; i++) seen.push((await iter.next()).value as RecordedEvent);
    expect(seen.map((e) => e.type)).toEqual(['a', 'b', 'c']);
    const live = iter.next();
    await store.appendToStream('job-e', [ev('d', 4)]);
    const next = await live;
    expect((next.value as RecordedEvent).type).toBe('d');
    controller.abort();
    expect((await iter.next()).done).toBe(true);
  }));

  // A write during a subscriber's handling must wake it: a wake-up nobody waited for was lost, and
  // the subscriber slept out its poll with the event waiting (a second on each job step that
  // followed another). The poll is a minute here: only the wake-up delivers in time.
  it.runIf(options.polling !== undefined)('hands a subscriber an event appended while it handles the previous one at once, not at its next poll', async () => {
    const POLL_MS = 60_000;
    const { store, dispose } = await options.polling!(POLL_MS);
    const controller = new AbortController();
    try {
      await store.appendToStream('wake-1', [ev('first', 1)]);
      let appendedAt = 0;
      let secondAfterMs = Number.NaN;
      for await (const e of store.subscribeToAll({ signal: controller.signal })) {
        if (e.type === 'first') {
          appendedAt = Date.now();
          await store.appendToStream('wake-1', [ev('second', 2)]);
          await new Promise((r) => setTimeout(r, 200)); // still handling the first when the wake-up comes
        } else {
          secondAfterMs = Date.now() - appendedAt;
          break;
        }
      }
      expect(secondAfterMs).toBeLessThan(POLL_MS / 4);
    } finally {
      controller.abort();
      await dispose();
    }
  }, 120_000);

  it.runIf(options.caughtUp)('tells a subscriber it has caught up only once it has handled every stored event, and again after a live append', withHarness(async ({ store }) => {
    await store.appendToStream('job-c1', [ev('a', 1), ev('b', 2)]);
    await store.appendToStream('user-c1', [ev('c', 3)]);
    const controller = new AbortController();
    const handled: RecordedEvent[] = [];
    /** How many events the subscriber had handled each time it was told it caught up. */
    const marks: number[] = [];
    const following = (async () => {
      for await (const e of store.subscribeToAll({ signal: controller.signal, onCaughtUp: () => marks.push(handled.length) })) {
        // A subscriber that takes its time with an event (a projection writing its document).
        await new Promise((r) => setTimeout(r, 20));
        handled.push(e);
      }
    })();
    try {
      await until(() => marks.length > 0);
      expect(marks[0]).toBe(3);
      await store.appendToStream('job-c1', [ev('d', 4)]);
      await until(() => marks.includes(4));
      expect(marks.every((m) => m === 3 || m === 4)).toBe(true);
    } finally {
      controller.abort();
      await following;
    }
  }));
}

/** Resuming after a checkpoint and keeping events across a restart. */
function durabilityTests(withHarness: WithHarness): void {
  it('resumes a subscription after a checkpoint, in global order', withHarness(async ({ store }) => {
    await store.appendToStream('job-f', [ev('a', 1), ev('b', 2), ev('c', 3)]);
    const all = await take(store.subscribeToAll(), 3);
    const positions = all.map((e) => e.position);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    const rest = await take(store.subscribeToAll({ fromPosition: all[0]!.position }), 2);
    expect(rest.map((e) => e.type)).toEqual(['b', 'c']);
  }));

  it('keeps every acknowledged event across a restart', withHarness(async (h) => {
    await h.store.appendToStream('job-g', [ev('a', 1)]);
    await h.store.appendToStream('job-g', [ev('b', 2)], { expectedRevision: 0 });
    const store = await h.restart();
    expect((await store.readStream('job-g')).map((e) => e.type)).toEqual(['a', 'b']);
    await store.appendToStream('job-g', [ev('c', 3)], { expectedRevision: 1 });
    const all = await take(store.subscribeToAll(), 3);
    expect(all.map((e) => e.type)).toEqual(['a', 'b', 'c']);
  }));
}

/** The guarantees every EventStore adapter keeps. */
export function eventStoreContract(name: string, create: () => Promise<EventStoreHarness>, options: EventStoreContractOptions = {}): void {
  describe(`EventStore contract: ${name}`, () => {
    const withHarness: WithHarness = (fn) => async () => {
      const h = await create();
      try {
        await fn(h);
      } finally {
        await h.dispose();
      }
    };
    appendTests(withHarness);
    subscriptionTests(withHarness, options);
    durabilityTests(withHarness);
  });
}
