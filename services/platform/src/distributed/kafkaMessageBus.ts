import { Kafka, logLevel, type Admin, type Consumer, type KafkaMessage, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { ConsumerLag } from '../metrics.js';
import { consumeSpan, withTraceHeaders } from '../telemetry.js';
import { deadLetterTopic, type ConsumeOptions, type IncomingMessage, type MessageBus, type MessageHandler, type OutgoingMessage, type Subscription } from '../ports/messageBus.js';

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  log?: Logger;
  /** Consumer session timeout: how soon a dead consumer's partitions move to another (default 10 s). */
  sessionTimeoutMs?: number;
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
      logLevel: logLevel.NOTHING,
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
    const consumer = this.kafka.consumer({
      groupId: group,
      sessionTimeout: this.opts.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: Math.max(300, Math.floor((this.opts.sessionTimeoutMs ?? 10_000) / 5)),
      rebalanceTimeout: 30_000,
      allowAutoTopicCreation: false,
    });
    const sub = new KafkaSubscription(consumer, this, group, topics, handler, options, this.opts.log);
    await sub.start(topics);
    this.subscriptions.add(sub);
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

  constructor(
    private readonly consumer: Consumer,
    private readonly bus: KafkaMessageBus,
    readonly group: string,
    readonly topics: readonly string[],
    private readonly handler: MessageHandler,
    private readonly options: ConsumeOptions,
    private readonly log?: Logger,
  ) {}

  async start(topics: readonly string[]): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: 1,
      eachMessage: ({ topic, partition, message }) => {
        const handled = this.handle(topic, partition, message);
        this.inflight = handled.catch(() => undefined);
        return handled;
      },
    });
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
    // Only now is the message done for this group.
    await this.consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
  }

  private async deliver(incoming: Omit<IncomingMessage, 'attempt'>): Promise<void> {
    const { topic } = incoming;
    const maxAttempts = this.options.maxAttempts ?? 5;
    const delay = this.options.retryDelayMs ?? 200;
    for (let attempt = 1; ; attempt++) {
      if (this.stopping.signal.aborted) throw new Error('subscription closing: not committed');
      try {
        await this.handler({ ...incoming, attempt } satisfies IncomingMessage);
        break;
      } catch (err) {
        if (attempt >= maxAttempts) {
          this.log?.error({ err, topic, offset: incoming.offset }, 'message moved to the dead-letter topic');
          await this.bus.publish(deadLetterTopic(topic), [
            { key: incoming.key, value: incoming.value, headers: { ...incoming.headers, 'x-error': err instanceof Error ? err.message : String(err), 'x-attempts': String(attempt), 'x-offset': incoming.offset } },
          ]);
          break;
        }
        await sleep(delay * 2 ** (attempt - 1), this.stopping.signal);
      }
    }
  }

  async close(): Promise<void> {
    this.stopping.abort();
    await this.inflight; // a handler that finished gets its commit before the consumer leaves
    await this.consumer.disconnect();
  }
}
