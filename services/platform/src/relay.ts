import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EventEnvelopeSchema, eventSchemas } from '@baret/proto';
import type { Logger } from 'pino';
import type { Collection } from './ports/documentStore.js';
import type { EventStore, RecordedEvent } from './ports/eventStore.js';
import type { MessageBus } from './ports/messageBus.js';
import { extractContext, hasTraceContext, SpanKind, withSpan } from './telemetry.js';

/** The category of a stream id "job-123" is "job"; the bus topic of its events is "job-events". */
export const streamCategory = (streamId: string): string => streamId.split('-')[0] ?? streamId;
export const topicOf = (streamId: string): string => `${streamCategory(streamId)}-events`;

export interface Checkpoint extends Record<string, unknown> {
  position: number;
}

/** Encodes a stored event as the binary protobuf envelope the bus carries. */
export function encodeEnvelope(event: RecordedEvent, schemas: Record<string, DescMessage> = eventSchemas): Uint8Array {
  const schema = schemas[event.type];
  if (!schema) throw new Error(`event type ${event.type} has no protobuf contract in proto/`);
  // Only the contract's fields cross the boundary; anything else stored with the event stays home.
  const payload = fromJson(schema, event.data as JsonValue, { ignoreUnknownFields: true });
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.metadata)) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return toBinary(
    EventEnvelopeSchema,
    create(EventEnvelopeSchema, {
      eventId: event.id,
      streamId: event.streamId,
      revision: BigInt(event.revision),
      position: BigInt(event.position),
      type: event.type,
      createdAt: timestampFromDate(event.createdAt),
      payload: anyPack(schema, payload),
      metadata,
    }),
  );
}

export interface DecodedEnvelope {
  id: string;
  streamId: string;
  revision: number;
  position: number;
  type: string;
  createdAt: Date;
  /** The payload in protobuf JSON with proto field names (snake_case), as stored. */
  data: Record<string, unknown>;
  metadata: Record<string, string>;
}

export function decodeEnvelope(bytes: Uint8Array, schemas: Record<string, DescMessage> = eventSchemas): DecodedEnvelope {
  const env = fromBinary(EventEnvelopeSchema, bytes);
  const schema = schemas[env.type];
  if (!schema || !env.payload) throw new Error(`cannot decode event type ${env.type}`);
  const message = anyUnpack(env.payload, schema);
  if (!message) throw new Error(`payload of ${env.type} is not ${schema.typeName}`);
  return {
    id: env.eventId,
    streamId: env.streamId,
    revision: Number(env.revision),
    position: Number(env.position),
    type: env.type,
    createdAt: env.createdAt ? timestampDate(env.createdAt) : new Date(0),
    data: toJson(schema, message, { useProtoFieldName: true }) as Record<string, unknown>,
    metadata: env.metadata,
  };
}

export interface RelayOptions {
  name: string;
  eventStore: EventStore;
  bus: MessageBus;
  checkpoints: Collection<Checkpoint>;
  /** Which events cross to the bus; by default those with a protobuf contract. */
  filter?: (event: RecordedEvent) => boolean;
  /** Only events of these stream categories (a service's own streams, in a store shared with others). */
  categories?: readonly string[];
  schemas?: Record<string, DescMessage>;
  log?: Logger;
  signal: AbortSignal;
}

/**
 * Forwards committed events from the event store to the bus, keyed by stream id (so one
 * stream's events stay in order) and checkpointed after each publish. A crash between
 * "stored" and "published" loses nothing: the relay starts again after its last checkpoint,
 * publishing at least once.
 */
export async function runRelay(options: RelayOptions): Promise<void> {
  const { name, eventStore, bus, checkpoints, signal, log } = options;
  const schemas = options.schemas ?? eventSchemas;
  const contract = options.filter ?? ((e: RecordedEvent) => e.type in schemas);
  const filter = options.categories ? (e: RecordedEvent) => options.categories!.includes(streamCategory(e.streamId)) && contract(e) : contract;
  const from = (await checkpoints.get(name))?.position ?? 0;
  log?.info({ relay: name, from }, 'relay started');
  for await (const event of eventStore.subscribeToAll({ fromPosition: from, signal })) {
    if (filter(event)) {
      const topic = topicOf(event.streamId);
      const publish = () => bus.publish(topic, [{ key: event.streamId, value: encodeEnvelope(event, schemas), headers: { 'event-type': event.type } }]);
      // An event stored with a trace context (the request or message behind its command) is
      // published in a span of that trace, whose context the bus puts in the message's headers.
      if (hasTraceContext(event.metadata)) {
        await withSpan(
          `${topic} publish`,
          {
            kind: SpanKind.PRODUCER,
            parent: extractContext(event.metadata),
            attributes: { 'messaging.operation.type': 'send', 'messaging.destination.name': topic, 'baret.event.type': event.type, 'baret.stream_id': event.streamId },
          },
          publish,
        );
      } else await publish();
    }
    await checkpoints.put(name, { position: event.position });
  }
}
