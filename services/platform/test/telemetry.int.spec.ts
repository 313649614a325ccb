import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeTraceIds,
  createEmbeddedInfrastructure,
  createLogger,
  handleCommand,
  KafkaMessageBus,
  metricsRegistry,
  observeQueueLag,
  runRelay,
  withSpan,
  type Checkpoint,
  type Infrastructure,
  type IncomingMessage,
  type MessageBus,
} from '@baret/platform';
import { engineInstalled, kafkaLibs, startKafka, waitUntil } from '@baret/platform/testing';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(() => provider.shutdown());
afterEach(() => exporter.reset());

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const spanNamed = (name: string): ReadableSpan => {
  const span = spans().find((s) => s.name === name);
  if (!span) throw new Error(`no span ${name} among ${spans().map((s) => s.name).join(', ')}`);
  return span;
};

/** A pino logger whose lines land in an array. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', 'test', sink), lines };
}

interface Seen {
  message: IncomingMessage;
  ids: ReturnType<typeof activeTraceIds>;
}

/** Consumes `count` messages of `topic` as `group`, noting the trace the handler runs in; logs a line in each. */
async function consume(bus: MessageBus, group: string, topic: string, count: number, log: ReturnType<typeof createLogger>): Promise<Seen[]> {
  const seen: Seen[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const sub = await bus.subscribe(group, [topic], async (message) => {
    seen.push({ message, ids: activeTraceIds() });
    log.info({ topic }, 'handled');
    if (seen.length >= count) done();
  });
  await Promise.race([finished, new Promise((r) => setTimeout(r, 30_000))]);
  await sub.close();
  return seen;
}

/** The trace of a publish inside a span reaches the consumer through the message headers. */
async function traceCrossesBus(bus: MessageBus, topic: string, system: string): Promise<void> {
  const { log, lines } = capturedLogger();
  const traceId = await withSpan('request', {}, async () => {
    await bus.publish(topic, [{ key: 'k', value: new Uint8Array([1]) }]);
    return activeTraceIds().trace_id!;
  });
  const publisher = spanNamed('request');
  const [seen] = await consume(bus, 'g', topic, 1, log);
  expect(seen!.message.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-${publisher.spanContext().spanId}-01$`));
  expect(seen!.ids.trace_id).toBe(traceId);
  const consumer = spanNamed(`${topic} process`);
  expect(consumer.spanContext().traceId).toBe(traceId);
  expect(consumer.parentSpanContext?.spanId).toBe(publisher.spanContext().spanId);
  expect(consumer.attributes['messaging.system']).toBe(system);
  expect(consumer.attributes['messaging.consumer.group.name']).toBe('g');
  // The handler's log line names the consumer span.
  expect(lines.find((l) => l.msg === 'handled')).toMatchObject({ trace_id: traceId, span_id: consumer.spanContext().spanId });
}

/** A group blocked on its first message lags by what was published after it; then catches up to 0. */
async function lagIsReported(bus: MessageBus & Required<Pick<MessageBus, 'lag'>>, topic: string): Promise<void> {
  let release!: () => void;
  const blocked = new Promise<void>((r) => (release = r));
  let handled = 0;
  const sub = await bus.subscribe('lagging', [topic], async () => {
    if (handled++ === 0) await blocked;
  });
  await bus.publish(topic, [1, 2, 3, 4].map((n) => ({ key: `k${n}`, value: new Uint8Array([n]) })));
  const lagOf = async () => (await bus.lag()).find((l) => l.group === 'lagging' && l.topic === topic)?.lag ?? -1;
  await waitUntil(async () => (await lagOf()) === 4 && handled === 1, 30_000, () => 'the lag of the blocked group');
  const undo = observeQueueLag(() => bus.lag());
  expect(await metricsRegistry.getSingleMetricAsString('baret_queue_lag')).toContain(`baret_queue_lag{group="lagging",topic="${topic}"} 4`);
  release();
  await waitUntil(async () => (await lagOf()) === 0, 30_000, () => 'the lag after catching up');
  expect(await metricsRegistry.getSingleMetricAsString('baret_queue_lag')).toContain(`baret_queue_lag{group="lagging",topic="${topic}"} 0`);
  undo();
  await sub.close();
}

describe('trace context across the embedded bus and the relay', () => {
  let infra: Infrastructure;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-telemetry-'));
    infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
  });
  afterAll(async () => {
    await infra.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a message published inside a span is handled in a child span of it, and log lines name it', async () => {
    await traceCrossesBus(infra.bus, 'embedded-trace', 'sqlite');
  });

  it('a command stores its trace with the events; the relay publishes them in that trace', async () => {
    const decider = {
      initialState: () => null,
      evolve: (s: null) => s,
      decide: () => [{ type: 'user_registered', data: { user_id: 'u1', email: 'a@example.com' } }],
    };
    const traceId = await withSpan('POST /register', {}, async () => {
      await handleCommand(infra.eventStore, 'user-u1', decider, { type: 'register', data: {} });
      return activeTraceIds().trace_id!;
    });
    const [stored] = await infra.eventStore.readStream('user-u1');
    expect(stored!.metadata.traceparent).toContain(traceId);
    // An event stored outside any span is relayed without a trace.
    await infra.eventStore.appendToStream('user-u2', [{ type: 'user_registered', data: { user_id: 'u2', email: 'b@example.com' } }]);

    const controller = new AbortController();
    const relay = runRelay({ name: 'r', eventStore: infra.eventStore, bus: infra.bus, checkpoints: infra.documents.collection<Checkpoint>('checkpoints'), signal: controller.signal });
    const seen = await consume(infra.bus, 'users', 'user-events', 2, createLogger('silent'));
    controller.abort();
    await relay;

    const publish = spanNamed('user-events publish');
    expect(publish.spanContext().traceId).toBe(traceId);
    expect(publish.attributes['baret.event.type']).toBe('user_registered');
    const [traced, untraced] = seen;
    expect(traced!.message.key).toBe('user-u1');
    expect(traced!.ids.trace_id).toBe(traceId);
    expect(spanNamed('user-events process').parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(untraced!.message.key).toBe('user-u2');
    expect(untraced!.message.headers.traceparent).toBeUndefined();
    expect(untraced!.ids).toEqual({});
  });

  it('reports the lag of a consumer group in /metrics', async () => {
    await lagIsReported(infra.bus as MessageBus & Required<Pick<MessageBus, 'lag'>>, 'embedded-lag');
  });
});

const kafkaInstalled = engineInstalled('Kafka trace propagation', kafkaLibs('4') !== null, 'Kafka 4');
describe.skipIf(!kafkaInstalled)('trace context across Kafka', () => {
  let kafka: Awaited<ReturnType<typeof startKafka>>;
  let bus: KafkaMessageBus;
  beforeAll(async () => {
    kafka = await startKafka('4');
    bus = await KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: 'telemetry-test', sessionTimeoutMs: 3000 });
  }, 180_000);
  afterAll(async () => {
    await bus?.close();
    await kafka?.stop();
  });

  it('traceparent travels in the Kafka message headers and the consumer continues the trace', async () => {
    await traceCrossesBus(bus, 'kafka-trace', 'kafka');
  }, 60_000);

  it('reports the consumer lag of a group from the broker', async () => {
    await lagIsReported(bus, 'kafka-lag');
  }, 90_000);
});
