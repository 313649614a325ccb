/**
 * EventStore port: append-only streams with optimistic concurrency, and one ordered
 * log of all events ("$all") that subscribers can follow from a checkpoint.
 *
 * Adapters: SQLite (embedded), EventStoreDB/KurrentDB (distributed).
 */
export type ExpectedRevision =
  /** append whatever the stream's state */
  | 'any'
  /** the stream must not exist yet */
  | 'no_stream'
  /** the stream must exist */
  | 'stream_exists'
  /** revision (0-based) of the stream's last event */
  | number;

import { ConcurrencyError } from '../errors.js';

/** Throws a ConcurrencyError unless a stream at revision `last` (-1: none) meets `expected`. */
export function checkExpectedRevision(streamId: string, expected: ExpectedRevision, last: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && last === -1) ||
    (expected === 'stream_exists' && last >= 0) ||
    (typeof expected === 'number' && expected === last);
  if (!ok) {
    throw new ConcurrencyError(`Stream ${streamId} is at revision ${last}, expected ${String(expected)}`, { streamId, expected, actual: last });
  }
}

export interface EventData<Type extends string = string, Data = unknown> {
  /** Unique id of the event; appending the same id twice to a stream is idempotent. */
  id?: string;
  type: Type;
  data: Data;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  streamId: string;
  /** 0-based position of the event in its stream. */
  revision: number;
  /** Position of the event in the global log ($all), strictly increasing. */
  position: number;
  type: Type;
  data: Data;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: number;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this global position; omit to start at the beginning. */
  fromPosition?: number;
  /** Ends the subscription's iterator. */
  signal?: AbortSignal;
  /**
   * Called each time the subscriber has been handed (and has handled) every event stored so far:
   * after each read that reached the end of the log, so at least once a second while the store
   * answers and nothing is appended. Not called while the store is unreachable. Adapters that
   * cannot tell (KurrentDB) never call it. A read-model cache uses it to know its invalidations
   * are current (docs/adr/0019).
   */
  onCaughtUp?: () => void;
}

export interface EventStore {
  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /** All events of a stream in order; an empty array when the stream does not exist. */
  readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
  /** Catch up from a checkpoint, then follow live appends, in global order, until aborted. */
  subscribeToAll(options?: SubscribeOptions): AsyncIterable<RecordedEvent>;
  /** Resolves when the store is reachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
