import { describe, expect, it } from 'vitest';
import { deadLetterTopic, runConsumer, type IncomingMessage, type MessageBus } from '../../ports/messageBus.js';

export interface MessageBusHarness {
  bus: MessageBus;
  /**
   * Abandon this instance as a crashed process would (no close, no commit of in-flight messages)
   * and open a new one on the same data.
   */
  crashAndRestart(): Promise<MessageBus>;
  /** Topic names unique to this test run, for adapters whose topics outlive a test. */
  topic(name: string): string;
  dispose(): Promise<void>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** Collects messages until `count` arrived or the deadline passed. */
function collector(count: number, timeoutMs = 30_000) {
  const seen: IncomingMessage[] = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const timer = setTimeout(resolve, timeoutMs);
  return {
    seen,
    handler: async (m: IncomingMessage) => {
      seen.push(m);
      if (seen.length >= count) {
        clearTimeout(timer);
        resolve();
      }
    },
    done,
  };
}

/** Runs a test on a fresh harness and disposes of it afterwards. */
type WithHarness = (fn: (h: MessageBusHarness) => Promise<void>) => () => Promise<void>;

/** Delivery: order per key, a copy per group, live messages, resuming after a commit. */
function deliveryTests(withHarness: WithHarness): void {
  it('delivers published messages with key, value and headers, in order per key', withHarness(async (h) => {
    const topic = h.topic('orders');
    await h.bus.publish(topic, [
      { key: 'a', value: enc('a1'), headers: { h: '1' } },
      { key: 'b', value: enc('b1') },
      { key: 'a', value: enc('a2') },
      { key: 'a', value: enc('a3') },
      { key: 'b', value: enc('b2') },
    ]);
    const c = collector(5);
    const sub = await h.bus.subscribe('g1', [topic], c.handler);
    await c.done;
    await sub.close();
    const byKey = (k: string) => c.seen.filter((m) => m.key === k).map((m) => dec(m.value));
    expect(byKey('a')).toEqual(['a1', 'a2', 'a3']);
    expect(byKey('b')).toEqual(['b1', 'b2']);
    expect(c.seen.find((m) => dec(m.value) === 'a1')?.headers.h).toBe('1');
    expect(c.seen.every((m) => m.topic === topic && m.attempt === 1)).toBe(true);
  }));

  it('gives every group its own copy of the stream', withHarness(async (h) => {
    const topic = h.topic('fanout');
    await h.bus.publish(topic, [{ key: 'k', value: enc('1') }, { key: 'k', value: enc('2') }]);
    const c1 = collector(2);
    const c2 = collector(2);
    const s1 = await h.bus.subscribe('one', [topic], c1.handler);
    const s2 = await h.bus.subscribe('two', [topic], c2.handler);
    await Promise.all([c1.done, c2.done]);
    await Promise.all([s1.close(), s2.close()]);
    expect(c1.seen.map((m) => dec(m.value))).toEqual(['1', '2']);
    expect(c2.seen.map((m) => dec(m.value))).toEqual(['1', '2']);
  }));

  it('delivers live messages published after subscribing', withHarness(async (h) => {
    const topic = h.topic('live');
    const c = collector(1);
    const sub = await h.bus.subscribe('live', [topic], c.handler);
    await h.bus.publish(topic, [{ key: 'k', value: enc('now') }]);
    await c.done;
    await sub.close();
    expect(c.seen.map((m) => dec(m.value))).toEqual(['now']);
  }));

  it('resumes a group after its committed offset', withHarness(async (h) => {
    const topic = h.topic('resume');
    await h.bus.publish(topic, [1, 2, 3].map((n) => ({ key: 'k', value: enc(String(n)) })));
    const first = collector(3);
    const s1 = await h.bus.subscribe('resumer', [topic], first.handler);
    await first.done;
    await s1.close();
    await h.bus.publish(topic, [4, 5].map((n) => ({ key: 'k', value: enc(String(n)) })));
    const second = collector(2);
    const s2 = await h.bus.subscribe('resumer', [topic], second.handler);
    await second.done;
    await s2.close();
    expect(second.seen.map((m) => dec(m.value))).toEqual(['4', '5']);
  }));
}

/** Failures: retries, the dead-letter topic, a consumer stopped early, a crashed process. */
function failureTests(withHarness: WithHarness): void {
  it('redelivers a message whose handler failed, before any later message of the key', withHarness(async (h) => {
    const topic = h.topic('retry');
    await h.bus.publish(topic, [{ key: 'k', value: enc('x') }, { key: 'k', value: enc('y') }]);
    const log: string[] = [];
    let failures = 0;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const sub = await h.bus.subscribe(
      'retrier',
      [topic],
      async (m) => {
        log.push(`${dec(m.value)}#${m.attempt}`);
        if (dec(m.value) === 'x' && failures < 2) {
          failures++;
          throw new Error('transient');
        }
        if (dec(m.value) === 'y') resolve();
      },
      { retryDelayMs: 10 },
    );
    await done;
    await sub.close();
    expect(log).toEqual(['x#1', 'x#2', 'x#3', 'y#1']);
  }));

  it('moves a message that keeps failing to the dead-letter topic and goes on', withHarness(async (h) => {
    const topic = h.topic('poison');
    await h.bus.publish(topic, [{ key: 'k', value: enc('bad') }, { key: 'k', value: enc('good') }]);
    const good = collector(1);
    const sub = await h.bus.subscribe(
      'poisoned',
      [topic],
      async (m) => {
        if (dec(m.value) === 'bad') throw new Error('always fails');
        await good.handler(m);
      },
      { maxAttempts: 3, retryDelayMs: 5 },
    );
    await good.done;
    await sub.close();
    expect(good.seen.map((m) => dec(m.value))).toEqual(['good']);
    const dlq = collector(1);
    const s2 = await h.bus.subscribe('dlq-reader', [deadLetterTopic(topic)], dlq.handler);
    await dlq.done;
    await s2.close();
    expect(dlq.seen.map((m) => dec(m.value))).toEqual(['bad']);
  }));

  it('ends a consumer stopped while it is still subscribing, and its group later gets every message it did not finish', withHarness(async (h) => {
    const topic = h.topic('early-stop');
    await h.bus.publish(topic, [1, 2].map((n) => ({ key: 'k', value: enc(String(n)) })));
    const early: string[] = [];
    const stop = new AbortController();
    const running = runConsumer(h.bus, 'early-stop', [topic], async (m) => void early.push(dec(m.value)), stop.signal);
    stop.abort(); // a service stopped just after it started (issue 29: this stop never ended)
    await running;
    const c = collector(2 - early.length);
    const sub = await h.bus.subscribe('early-stop', [topic], c.handler);
    if (early.length < 2) await c.done;
    await sub.close();
    expect([...early, ...c.seen.map((m) => dec(m.value))]).toEqual(['1', '2']);
  }));

  it('hands an uncommitted message to the group again after a crash', withHarness(async (h) => {
    const topic = h.topic('crash');
    await h.bus.publish(topic, [1, 2, 3].map((n) => ({ key: 'k', value: enc(String(n)) })));
    const handled: string[] = [];
    let reachedTwo!: () => void;
    const atTwo = new Promise<void>((r) => (reachedTwo = r));
    await h.bus.subscribe('crasher', [topic], async (m) => {
      if (dec(m.value) === '2') {
        reachedTwo();
        await new Promise<never>(() => undefined); // the process "dies" while handling 2
      }
      handled.push(dec(m.value));
    });
    await atTwo;
    const bus = await h.crashAndRestart();
    const c = collector(2);
    const sub = await bus.subscribe('crasher', [topic], c.handler);
    await c.done;
    await sub.close();
    expect(handled).toEqual(['1']);
    expect(c.seen.map((m) => dec(m.value))).toEqual(['2', '3']);
  }));
}

/** The guarantees every MessageBus adapter keeps. */
export function messageBusContract(name: string, create: () => Promise<MessageBusHarness>): void {
  describe(`MessageBus contract: ${name}`, () => {
    const withHarness: WithHarness = (fn) => async () => {
      const h = await create();
      try {
        await fn(h);
      } finally {
        await h.dispose();
      }
    };
    deliveryTests(withHarness);
    failureTests(withHarness);
  });
}
