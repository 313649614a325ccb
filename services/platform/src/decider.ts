import { ConcurrencyError } from './errors.js';
import { traceHeaders, withSpan } from './telemetry.js';
import type { EventStore, ExpectedRevision, RecordedEvent } from './ports/eventStore.js';

/** A domain event or command: a discriminated union member with a payload. */
export interface Message<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/**
 * An aggregate as a decider: pure functions, no I/O. `decide` throws a typed domain error when
 * the command is not allowed.
 */
export interface Decider<State, Command extends Message, Event extends Message> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event | Event[];
}

export interface CommandResult<State, Event> {
  state: State;
  newEvents: Event[];
  /** The appended events as stored (ids, revisions, positions, timestamps). */
  recorded: RecordedEvent[];
  nextExpectedRevision: number;
}

/** Serialises work per key inside this process. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

const streamLocks = new KeyedMutex();

/** The state of an aggregate from its recorded events. */
export const fold = <State, Event extends Message>(
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  recorded: readonly RecordedEvent[],
): State => recorded.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as Event), decider.initialState());

/**
 * Read the stream, fold it, decide, append with the revision read. Commands on one stream run
 * one at a time in this process; a concurrent write from another process makes the whole cycle
 * run again (up to `retries` times), so a command never acts on stale state.
 */
export async function handleCommand<State, Command extends Message, Event extends Message>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: { retries?: number; metadata?: Record<string, unknown> } = {},
): Promise<CommandResult<State, Event>> {
  const retries = options.retries ?? 10;
  // One span per command, naming the events it stored; the trace travels with the events (the relay reads it).
  return withSpan(`command ${command.type}`, { attributes: { 'baret.stream_id': streamId } }, async (span) => {
    const trace = traceHeaders();
    const metadata = Object.keys(trace).length > 0 ? { ...options.metadata, ...trace } : options.metadata;
    const result = await streamLocks.run(streamId, async (): Promise<CommandResult<State, Event>> => {
      for (let attempt = 0; ; attempt++) {
        const existing = await store.readStream(streamId);
        let state = fold(decider, existing);
        const decided = decider.decide(command, state);
        const newEvents = Array.isArray(decided) ? decided : [decided];
        if (newEvents.length === 0) return { state, newEvents, recorded: [], nextExpectedRevision: existing.length - 1 };
        const expectedRevision: ExpectedRevision = existing.length === 0 ? 'no_stream' : existing.length - 1;
        try {
          const appended = await store.appendToStream(
            streamId,
            newEvents.map((e) => ({ type: e.type, data: e.data, metadata })),
            { expectedRevision },
          );
          for (const e of newEvents) state = decider.evolve(state, e);
          const recorded = await store.readStream(streamId, { fromRevision: existing.length });
          return { state, newEvents, recorded, nextExpectedRevision: appended.nextExpectedRevision };
        } catch (e) {
          if (!(e instanceof ConcurrencyError) || attempt >= retries) throw e;
          await new Promise((r) => setTimeout(r, Math.random() * 10 * (attempt + 1)));
        }
      }
    });
    span.setAttribute('baret.events', result.newEvents.map((e) => e.type));
    return result;
  });
}

/** Folds a stream into state without deciding anything. */
export async function aggregateStream<State, Event extends Message>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; revision: number }> {
  const recorded = await store.readStream(streamId);
  return { state: fold(decider, recorded), revision: recorded.length - 1 };
}
