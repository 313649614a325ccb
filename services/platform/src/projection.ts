import type { Logger } from 'pino';
import type { Checkpoint } from './relay.js';
import type { Collection, Document, DocumentStore } from './ports/documentStore.js';
import type { EventStore, RecordedEvent } from './ports/eventStore.js';

/** Where a projection reads the events it has not seen of a stream. */
export type StreamReader = Pick<EventStore, 'readStream'>;

/**
 * A read model built from events. `apply` must be idempotent: it is called inline right after a
 * command (so a page reads its own writes) and again by the catch-up runner (so nothing is lost if
 * the process died in between), and two commands on one stream may apply their events in either
 * order. A document per stream folds its events with `foldStreamInto`, which applies them in
 * stream order whatever order they arrive in.
 */
export interface Projection {
  name: string;
  /** Stream categories this projection reads ("user" for "user-…"). */
  categories: readonly string[];
  apply(event: RecordedEvent, documents: DocumentStore, events: StreamReader): Promise<void>;
  /**
   * Told by its catch-up runner each time it has applied every event stored so far (at least once
   * a second while the event store answers), and when the runner stopped (failed, or the process
   * stops): what a cache invalidated by this projection needs to know whether it may be used.
   */
  caughtUp?(): void;
  stopped?(): void;
}

/**
 * Folds one stream into one document, every event exactly once and in stream order. The document's
 * `revision` is its checkpoint in the stream: an event it already holds is skipped; an event that
 * comes after a gap (a later command's inline projection ran first) makes it read the missing
 * events from the store; the write is conditional (`putIfNewer`), so a writer that was overtaken
 * never puts an older state back. Every stored document is thus the fold of its stream's events
 * 0…revision. `evolve` returning null means no document: none is written, one there is deleted
 * (a later event of a deleted stream, arriving late, folds the stream to its end and stays deleted).
 * Returns the document it found (`before`) and the one now stored as far as this call knows
 * (`after`; the one found when the event was already applied).
 */
export async function foldStreamInto<D extends Document>(options: {
  collection: Collection<D & { revision: number }>;
  id: string;
  event: RecordedEvent;
  events: StreamReader;
  evolve: (doc: D | null, event: RecordedEvent) => D | null;
}): Promise<{ before: D | null; after: D | null }> {
  const { collection, id, event, events, evolve } = options;
  const doc = await collection.get(id);
  const have = typeof doc?.revision === 'number' ? doc.revision : -1;
  if (event.revision <= have) return { before: doc, after: doc };
  const missing = event.revision === have + 1 ? [event] : await events.readStream(event.streamId, { fromRevision: have + 1 });
  let next: D | null = doc;
  let revision = have;
  for (const e of missing) {
    next = evolve(next, e);
    revision = e.revision;
  }
  if (next !== null) await collection.putIfNewer(id, { ...next, revision });
  else if (doc !== null) await collection.delete(id);
  return { before: doc, after: next };
}

const categoryOf = (streamId: string): string => streamId.split('-')[0] ?? streamId;

export async function projectInline(
  projections: readonly Projection[],
  events: readonly RecordedEvent[],
  documents: DocumentStore,
  eventStore: StreamReader,
): Promise<void> {
  for (const event of events) {
    for (const p of projections) if (p.categories.includes(categoryOf(event.streamId))) await p.apply(event, documents, eventStore);
  }
}

/**
 * Follows `$all` from the projection's checkpoint and applies every event of its categories,
 * one at a time, in order; stores the checkpoint after each. Tells the projection when it has
 * caught up with the store and when it stops (`caughtUp`, `stopped`).
 */
export async function runProjection(options: {
  projection: Projection;
  eventStore: EventStore;
  documents: DocumentStore;
  signal: AbortSignal;
  log?: Logger;
}): Promise<void> {
  const { projection, eventStore, documents, signal } = options;
  const checkpoints: Collection<Checkpoint> = documents.collection<Checkpoint>('checkpoints');
  const name = `projection:${projection.name}`;
  try {
    let position = (await checkpoints.get(name))?.position ?? 0;
    let sinceSave = 0;
    for await (const event of eventStore.subscribeToAll({ fromPosition: position, signal, onCaughtUp: projection.caughtUp?.bind(projection) })) {
      if (projection.categories.includes(categoryOf(event.streamId))) {
        await projection.apply(event, documents, eventStore);
        await checkpoints.put(name, { position: event.position });
        sinceSave = 0;
      } else if (++sinceSave >= 100) {
        await checkpoints.put(name, { position: event.position });
        sinceSave = 0;
      }
      position = event.position;
    }
    await checkpoints.put(name, { position });
  } finally {
    projection.stopped?.();
  }
}

/** The revision guard: true when `revision` is newer than what the document already holds. */
export const isNewer = (doc: { revision?: unknown } | null, revision: number): boolean =>
  doc === null || typeof doc.revision !== 'number' || revision > doc.revision;
