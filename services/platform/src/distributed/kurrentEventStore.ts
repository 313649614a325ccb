import {
  ANY,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendStreamState,
  type JSONEventType,
} from '@kurrent/kurrentdb-client';
import { ConcurrencyError } from '../errors.js';
import type { AppendResult, EventData, EventStore, ExpectedRevision, RecordedEvent, SubscribeOptions } from '../ports/eventStore.js';

const state = (expected: ExpectedRevision): AppendStreamState =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : BigInt(expected);

interface KurrentRecorded {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  created: Date;
  data: unknown;
  metadata?: unknown;
  position?: { commit: bigint; prepare: bigint };
}

const toRecorded = (e: KurrentRecorded): RecordedEvent => ({
  id: e.id,
  streamId: e.streamId,
  revision: Number(e.revision),
  position: Number(e.position?.commit ?? 0n),
  type: e.type,
  data: e.data,
  metadata: (e.metadata ?? {}) as Record<string, unknown>,
  createdAt: e.created,
});

/** How long the connection check at start waits for an answer. */
const CHECK_TIMEOUT_MS = 5000;

/**
 * The EventStore port on KurrentDB with `@kurrent/kurrentdb-client` (docs/adr/0009), the current
 * client and its `kurrentdb://` scheme (the `esdb://` scheme of EventStoreDB's client is refused
 * with the way to fix it). Streams and expected revisions map one to one; the global position is
 * the commit position of the $all log. `connect` checks the server answers before the service
 * goes on (a clear error naming the server, never a crash later). Not run on the build machines
 * (KurrentDB ships as Docker images only): its contract suite runs where EVENTSTORE_URL is set.
 */
export class KurrentEventStore implements EventStore {
  private constructor(private readonly client: KurrentDBClient) {}

  static async connect(url: string): Promise<KurrentEventStore> {
    const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase();
    if (scheme === 'esdb' || scheme === 'esdb+discover') {
      throw Object.assign(new Error(`EVENTSTORE_URL uses the deprecated ${scheme}:// scheme: write ${scheme.replace('esdb', 'kurrentdb')}:// instead (the same host, port and options)`), { fatal: true });
    }
    if (scheme !== 'kurrentdb' && scheme !== 'kurrentdb+discover') {
      throw Object.assign(new Error('EVENTSTORE_URL must be a KurrentDB connection string: kurrentdb://host:2113?tls=true (or kurrentdb+discover://)'), { fatal: true });
    }
    const store = new KurrentEventStore(KurrentDBClient.connectionString(url));
    const where = url.replace(/\/\/[^@/]*@/, '//');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        store.ping(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
        }),
      ]);
    } catch (e) {
      await store.close().catch(() => undefined);
      const error = new Error(`KurrentDB at ${where} is not reachable: ${e instanceof Error ? e.message : String(e)}`);
      (error as { unavailable?: boolean }).unavailable = true;
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return store;
  }

  async appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent<JSONEventType>({ type: e.type, data: (e.data ?? null) as JSONEventType['data'], metadata: e.metadata ?? {}, ...(e.id ? { id: e.id } : {}) })),
        { streamState: state(expected) },
      );
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position: Number(result.position?.commit ?? 0n) };
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) {
        throw new ConcurrencyError(`Stream ${streamId} is not at the expected revision ${String(expected)}`, { streamId, expected });
      }
      throw e;
    }
  }

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision: BigInt(options.fromRevision ?? 0), direction: FORWARDS })) {
        if (resolved.event) out.push(toRecorded(resolved.event as KurrentRecorded));
      }
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
    return out;
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    const from = options.fromPosition;
    const subscription = this.client.subscribeToAll({
      fromPosition: from === undefined ? START : { commit: BigInt(from), prepare: BigInt(from) },
      filter: excludeSystemEvents(),
    });
    const stop = () => void subscription.unsubscribe();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      for await (const resolved of subscription) {
        if (options.signal?.aborted) return;
        if (resolved.event) yield toRecorded(resolved.event as KurrentRecorded);
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      await subscription.unsubscribe().catch(() => undefined);
    }
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1, direction: FORWARDS, fromPosition: START })) break;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
