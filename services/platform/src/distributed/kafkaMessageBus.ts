import { Kafka, logLevel, type Admin, type Consumer, type KafkaMessage, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { ConsumerLag } from '../metrics.js';
import { consumeSpan, withTraceHeaders } from '../telemetry.js';
import { backoffMs, briefError, isUnavailable } from '../unavailable.js';
import { deadLetterTopic, type ConsumeOptions, type IncomingMessage, type MessageBus, type MessageHandler, type OutgoingMessage, type Subscription } from '../ports/messageBus.js';

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  log?: Logger;
  /** Consumer session timeout: how soon a dead consumer's partitions move to another (default 10 s). */
  sessionTimeoutMs?: number;
  /**
   * How long a handler may work while its consumer keeps the session alive (default 30 min): past
   * that it is taken for hung, heartbeats stop and its partitions move to another consumer.
   */
  maxHandlerMs?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * The MessageBus port on Apache Kafka with `kafkajs` (docs/adr/0010): an idempotent producer with
 * acks from all in-sync replicas, the message key as Kafka key (order per key = order per
 * partition), consumer groups that commit a message's offset only after its handler finished
 * (at least once), retries with doubling delays and then `<topic>.dlq` with the failure in headers.
 */
export class KafkaMessageBus implements MessageBus {
  private readonly topics = new Set<string>();
  private readonly subscriptions = new Set<KafkaSubscription>();

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    private readonly opts: KafkaOptions,
  ) {}

  static async connect(opts: KafkaOptions): Promise<KafkaMessageBus> {
    const kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      // The client's own warnings and errors (rebalances, lost coordinators) reach the service's log.
      logLevel: opts.log ? logLevel.WARN : logLevel.NOTHING,
      logCreator: () => {
        // While the broker is down the client says the same few things again and again (hundreds of
        // "Failed to connect to seed broker"): each message once per 30 s, with how often it recurred.
        const said = new Map<string, { at: number; again: number }>();
        return ({ namespace, level, log }) => {
          const { message, ...extra } = log;
          // Request-level errors are retried by the client and said again if they end a consumer.
          if (namespace === 'Connection' || /switched default partitioner|Limiting retries/.test(message)) return;
          const now = Date.now();
          const last = said.get(message);
          if (last && now - last.at < 30_000) {
            last.again += 1;
            return;
          }
          said.set(message, { at: now, again: 0 });
          const { stack: _stack, ...rest } = extra as Record<string, unknown>;
          const fields = { kafka: { namespace, ...rest, ...(last?.again ? { repeated: last.again } : {}) } };
          if (level === logLevel.ERROR) opts.log?.error(fields, `kafka: ${message}`);
          else opts.log?.warn(fields, `kafka: ${message}`);
        };
      },
      retry: { retries: 8, initialRetryTime: 200 },
    });
    const admin = kafka.admin();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await admin.connect();
    await producer.connect();
    return new KafkaMessageBus(kafka, admin, producer, opts);
  }

  /**
   * Topics are created on first use, idempotently: several services may create the same one at
   * once, and a topic another process just created may not have its partition leaders yet, so this
   * waits (up to 60 s) until the broker says every partition has one.
   */
  async ensureTopics(topics: readonly string[]): Promise<void> {
    const missing = topics.filter((t) => !this.topics.has(t));
    if (missing.length === 0) return;
    const deadline = Date.now() + 60_000;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true }).catch((e: unknown) => {
          if ((e as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw e;
        });
        const { topics: meta } = await this.admin.fetchTopicMetadata({ topics: missing });
        const ready = meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
        if (ready) break;
        throw new Error(`topics ${missing.join(', ')} have no partition leader yet`);
      } catch (e) {
        if (Date.now() > deadline) throw e;
        this.opts.log?.debug({ err: e, attempt, topics: missing }, 'waiting for Kafka topics');
        await sleep(Math.min(2000, 100 * 2 ** attempt));
      }
    }
    for (const t of missing) this.topics.add(t);
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.ensureTopics([topic]);
    await this.producer.send({
      topic,
      acks: -1,
      // The active trace goes along in the headers (W3C traceparent), unless a message names its own.
      messages: messages.map((m) => ({ key: m.key, value: Buffer.from(m.value), headers: withTraceHeaders(m.headers) })),
    });
  }

  async subscribe(group: string, topics: readonly string[], handler: MessageHandler, options: ConsumeOptions = {}): Promise<Subscription> {
    await this.ensureTopics(topics);
    const consumer = () =>
      this.kafka.consumer({
        groupId: group,
        sessionTimeout: this.opts.sessionTimeoutMs ?? 10_000,
        heartbeatInterval: Math.max(300, Math.floor((this.opts.sessionTimeoutMs ?? 10_000) / 5)),
        rebalanceTimeout: 30_000,
        allowAutoTopicCreation: false,
        // A consumer's stop waits for its fetch in flight, a long poll of up to this long while the
        // topic is idle (kafkajs' default 5 s made every stop take ~5 s); a message still comes at once.
        maxWaitTimeInMs: 1000,
        // A consumer that crashes once it is being closed is not started again by kafkajs.
        retry: { retries: 8, initialRetryTime: 200, restartOnFailure: () => Promise.resolve(!sub.closing) },
      });
    const sub: KafkaSubscription = new KafkaSubscription(consumer, this, group, handler, options, this.opts.maxHandlerMs ?? 30 * 60_000, this.opts.log);
    // Known before it has started: the bus's close() closes a subscription still joining its group.
    this.subscriptions.add(sub);
    try {
      await sub.start(topics);
    } catch (err) {
      this.subscriptions.delete(sub);
      await sub.close().catch(() => undefined);
      throw err;
    }
    return { close: async () => (this.subscriptions.delete(sub), sub.close()) };
  }

  async ping(): Promise<void> {
    await this.admin.describeCluster();
  }

  /** The lag of every group this process consumes as: the end offsets minus the group's committed ones. */
  async lag(): Promise<ConsumerLag[]> {
    const out: ConsumerLag[] = [];
    const seen = new Set<string>();
    for (const sub of this.subscriptions) {
      if (seen.has(sub.group)) continue;
      seen.add(sub.group);
      const committed = await this.admin.fetchOffsets({ groupId: sub.group, topics: [...sub.topics] });
      for (const { topic, partitions } of committed) {
        const ends = await this.admin.fetchTopicOffsets(topic);
        let lag = 0;
        for (const end of ends) {
          const done = partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
          // Nothing committed yet: the group reads from the start, so all still there is lag.
          const from = Number(done) >= 0 ? Number(done) : Number(end.low);
          lag += Math.max(0, Number(end.high) - from);
        }
        out.push({ group: sub.group, topic, lag });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const s of [...this.subscriptions]) await s.close();
    this.subscriptions.clear();
    await this.producer.disconnect();
    await this.admin.disconnect();
  }
}

class KafkaSubscription {
  private readonly stopping = new AbortController();
  /** The message being handled (and committed), awaited by close. */
  private inflight: Promise<void> = Promise.resolve();
  private consumer: Consumer;
  private closed: Promise<void> | null = null;
  topics: readonly string[] = [];

  constructor(
    private readonly makeConsumer: () => Consumer,
    private readonly bus: KafkaMessageBus,
    readonly group: string,
    private readonly handler: MessageHandler,
    private readonly options: ConsumeOptions,
    private readonly maxHandlerMs: number,
    private readonly log?: Logger,
  ) {
    this.consumer = makeConsumer();
  }

  get closing(): boolean {
    return this.stopping.signal.aborted;
  }

  async start(topics: readonly string[]): Promise<void> {
    this.topics = topics;
    const consumer = this.consumer;
    // kafkajs restarts a consumer after retriable failures only; after another (e.g. "the
    // coordinator is not aware of this member" once a rebalance outran a long handler) it stays
    // down, and the group would lose a member silently. Start a fresh one instead.
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopping.signal.aborted) return;
      this.log?.warn({ err: payload.error, group: payload.groupId }, 'Kafka consumer stopped after an error: starting a new one');
      void this.restart(consumer);
    });
    // Closed while connecting: close() has disconnected this consumer already, or is about to; one
    // that connected after that is disconnected here, so nothing of it outlives the close.
    const closedMeanwhile = async () => {
      if (!this.stopping.signal.aborted) return false;
      await consumer.disconnect().catch(() => undefined);
      return true;
    };
    await consumer.connect();
    if (await closedMeanwhile()) return;
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    if (await closedMeanwhile()) return;
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: 1,
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        // kafkajs heartbeats between messages only: a handler that runs longer than the session
        // timeout (an analysis job) would be taken for dead and its partitions moved. Keep the
        // session alive while the handler works.
        const until = Date.now() + this.maxHandlerMs;
        const beat = setInterval(() => {
          if (Date.now() < until) void heartbeat().catch(() => undefined);
          else clearInterval(beat);
        }, 1000);
        const handled = this.handle(topic, partition, message);
        this.inflight = handled.catch(() => undefined);
        try {
          await handled;
        } finally {
          clearInterval(beat);
        }
      },
    });
    await closedMeanwhile();
  }

  private async restart(crashed: Consumer): Promise<void> {
    await crashed.disconnect().catch(() => undefined);
    for (let attempt = 1; !this.stopping.signal.aborted; attempt++) {
      await sleep(Math.min(10_000, 500 * 2 ** attempt), this.stopping.signal);
      if (this.stopping.signal.aborted) return;
      this.consumer = this.makeConsumer();
      try {
        await this.start(this.topics);
        return;
      } catch (err) {
        this.log?.warn({ err, attempt }, 'Kafka consumer could not start again; retrying');
        await this.consumer.disconnect().catch(() => undefined);
      }
    }
  }

  private async handle(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    const incoming = {
      topic,
      key: message.key?.toString() ?? '',
      value: new Uint8Array(message.value ?? Buffer.alloc(0)),
      headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, Array.isArray(v) ? String(v[0]) : String(v ?? '')])),
      offset: `${partition}:${message.offset}`,
    };
    // The handler runs in the trace the message carries.
    await consumeSpan('kafka', incoming, this.group, () => this.deliver(incoming));
    // Only now is the message done for this group. A commit refused because the group is
    // rebalancing is no failure of the message: whoever owns the partition next gets it again
    // (at least once), and this consumer goes on rejoining.
    try {
      await this.consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    } catch (err) {
      const type = (err as { type?: string }).type ?? '';
      if (!/REBALANCE_IN_PROGRESS|UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION|NOT_COORDINATOR/.test(type)) throw err;
      this.log?.warn({ err, topic, offset: incoming.offset }, 'offset not committed: the group is rebalancing; the message will be handled again');
    }
  }

  private async deliver(incoming: Omit<IncomingMessage, 'attempt'>): Promise<void> {
    const { topic } = incoming;
    const maxAttempts = this.options.maxAttempts ?? 5;
    const delay = this.options.retryDelayMs ?? 200;
    let failures = 0;
    let outages = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.stopping.signal.aborted) throw new Error('subscription closing: not committed');
      try {
        await this.handler({ ...incoming, attempt } satisfies IncomingMessage);
        break;
      } catch (err) {
        // A dependency down (an engine, another service) is no failure of the message: it waits,
        // however long, and never goes to the dead-letter topic for it.
        if (isUnavailable(err)) {
          const wait = backoffMs(outages++, delay, 10_000);
          this.log?.warn({ error: briefError(err), group: this.group, topic, offset: incoming.offset, retry_in_ms: wait }, 'message handler waits: a dependency is unavailable');
          await sleep(wait, this.stopping.signal);
          continue;
        }
        if (++failures >= maxAttempts) {
          this.log?.error({ err, topic, offset: incoming.offset }, 'message moved to the dead-letter topic');
          await this.bus.publish(deadLetterTopic(topic), [
            { key: incoming.key, value: incoming.value, headers: { ...incoming.headers, 'x-error': err instanceof Error ? err.message : String(err), 'x-attempts': String(failures), 'x-offset': incoming.offset } },
          ]);
          break;
        }
        await sleep(delay * 2 ** (failures - 1), this.stopping.signal);
      }
    }
  }

  /**
   * Stops taking messages and leaves the group. A handler in flight is told (its retry and
   * "wait for a dependency" sleeps end at once, and it is not tried again) and awaited: what it
   * finished is committed, what it did not is not, so the group's next owner gets it again.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.stopping.abort();
      await this.inflight; // a handler that finished gets its commit before the consumer leaves
      await this.consumer.disconnect();
    })();
    return this.closed;
  }
}
