/**
 * MessageBus port: topics of keyed messages, consumed by named groups with committed offsets.
 *
 * Guarantees every adapter keeps (checked by the contract suite):
 * - a publish that resolved is durable;
 * - delivery is at least once: a message whose handler did not finish (threw, or the process died)
 *   is delivered again to the group;
 * - order is kept per key within a topic;
 * - a group resumes after its last committed message.
 *
 * Adapters: SQLite log (embedded), Kafka (distributed).
 */
export interface OutgoingMessage {
  key: string;
  value: Uint8Array;
  headers?: Record<string, string>;
}

export interface IncomingMessage {
  topic: string;
  key: string;
  value: Uint8Array;
  headers: Record<string, string>;
  /** Adapter-specific position, for logs. */
  offset: string;
  /** How many times this message was handed to this group's handler, starting at 1. */
  attempt: number;
}

export type MessageHandler = (message: IncomingMessage) => Promise<void>;

export interface ConsumeOptions {
  /** Handler failures before the message is moved to `<topic>.dlq` and skipped. Default 5. */
  maxAttempts?: number;
  /** First retry delay in ms; doubles each attempt. Default 200. */
  retryDelayMs?: number;
}

export interface Subscription {
  /** Stop consuming; an in-flight handler is awaited, its message is committed only if it finished. */
  close(): Promise<void>;
}

export interface MessageBus {
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  subscribe(
    group: string,
    topics: readonly string[],
    handler: MessageHandler,
    options?: ConsumeOptions,
  ): Promise<Subscription>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Messages each consumer group of this process has not handled yet, per topic (for /metrics). */
  lag?(): Promise<Array<{ group: string; topic: string; lag: number }>>;
}

export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

/**
 * Consume as `group` until `signal` aborts, then close the subscription (for background tasks).
 *
 * A stop that comes while the subscription is still being made (joining a Kafka group can take many
 * seconds on a busy machine) does not wait for it: the subscription is closed as soon as it exists,
 * and the bus's own close() closes one still starting. (Listening for the abort only after subscribe
 * resolved missed such a stop, and the task, and with it the service's stop, never ended: issue 29.)
 */
export async function runConsumer(
  bus: MessageBus,
  group: string,
  topics: readonly string[],
  handler: MessageHandler,
  signal: AbortSignal,
  options?: ConsumeOptions,
): Promise<void> {
  if (signal.aborted) return;
  const stopped = new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }));
  const subscribing = bus.subscribe(group, topics, handler, options);
  const subscription = await Promise.race([subscribing, stopped]);
  if (subscription === null) {
    void subscribing.then((s) => s.close()).catch(() => undefined);
    return;
  }
  await stopped;
  await subscription.close();
}
