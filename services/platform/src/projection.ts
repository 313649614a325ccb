import type { Logger } from 'pino';
import type { Checkpoint } from './relay.js';
import type { Collection, DocumentStore } from './ports/documentStore.js';
import type { EventStore, RecordedEvent } from './ports/eventStore.js';

/**
 * A read model built from events. `apply` must be idempotent: it is called inline right after a
 * command (so a page reads its own writes) and again by the catch-up runner (so nothing is lost if
 * the process died in between). Guard updates with the stream revision stored in the document.
 */
export interface Projection {
  name: string;
  /** Stream categories this projection reads ("user" for "user-…"). */
  categories: readonly string[];
  apply(event: RecordedEvent, documents: DocumentStore): Promise<void>;
}

const categoryOf = (streamId: string): string => streamId.split('-')[0] ?? streamId;

export async function projectInline(
  projections: readonly Projection[],
  events: readonly RecordedEvent[],
  documents: DocumentStore,
): Promise<void> {
  for (const event of events) {
    for (const p of projections) if (p.categories.includes(categoryOf(event.streamId))) await p.apply(event, documents);
  }
}

/**
 * Follows `$all` from the projection's checkpoint and applies every event of its categories,
 * one at a time, in order; stores the checkpoint after each.
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
  let position = (await checkpoints.get(name))?.position ?? 0;
  let sinceSave = 0;
  for await (const event of eventStore.subscribeToAll({ fromPosition: position, signal })) {
    if (projection.categories.includes(categoryOf(event.streamId))) {
      await projection.apply(event, documents);
      await checkpoints.put(name, { position: event.position });
      sinceSave = 0;
    } else if (++sinceSave >= 100) {
      await checkpoints.put(name, { position: event.position });
      sinceSave = 0;
    }
    position = event.position;
  }
  await checkpoints.put(name, { position });
}

/** The revision guard: true when `revision` is newer than what the document already holds. */
export const isNewer = (doc: { revision?: unknown } | null, revision: number): boolean =>
  doc === null || typeof doc.revision !== 'number' || revision > doc.revision;
