import { ConcurrencyError } from './errors.js';
import type { EventStore, ExpectedRevision } from './ports/eventStore.js';

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
  nextExpectedRevision: number;
}

/**
 * Read the stream, fold it, decide, append with the revision read. On a concurrent write the
 * whole cycle runs again (up to `retries` times), so commands never act on stale state.
 */
export async function handleCommand<State, Command extends Message, Event extends Message>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: { retries?: number; metadata?: Record<string, unknown> } = {},
): Promise<CommandResult<State, Event>> {
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const recorded = await store.readStream(streamId);
    let state = decider.initialState();
    for (const e of recorded) state = decider.evolve(state, { type: e.type, data: e.data } as Event);
    const decided = decider.decide(command, state);
    const newEvents = Array.isArray(decided) ? decided : [decided];
    const expectedRevision: ExpectedRevision = recorded.length === 0 ? 'no_stream' : recorded.length - 1;
    if (newEvents.length === 0) return { state, newEvents, nextExpectedRevision: recorded.length - 1 };
    try {
      const result = await store.appendToStream(
        streamId,
        newEvents.map((e) => ({ type: e.type, data: e.data, metadata: options.metadata })),
        { expectedRevision },
      );
      for (const e of newEvents) state = decider.evolve(state, e);
      return { state, newEvents, nextExpectedRevision: result.nextExpectedRevision };
    } catch (e) {
      if (!(e instanceof ConcurrencyError) || attempt >= retries) throw e;
    }
  }
}

/** Folds a stream into state without deciding anything. */
export async function aggregateStream<State, Event extends Message>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; revision: number }> {
  const recorded = await store.readStream(streamId);
  let state = decider.initialState();
  for (const e of recorded) state = decider.evolve(state, { type: e.type, data: e.data } as Event);
  return { state, revision: recorded.length - 1 };
}
