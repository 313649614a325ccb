import { expect } from 'vitest';
import type { Decider, Message } from '../decider.js';

/**
 * Given / when / then on a decider, with no I/O:
 * `spec.given([e1]).when(c).then([e2])` or `.thenThrows(IllegalStateError)`.
 */
export function deciderSpec<State, Command extends Message, Event extends Message>(decider: Decider<State, Command, Event>) {
  return {
    given: (events: Event[]) => ({
      when: (command: Command) => {
        const act = () => {
          const state = events.reduce(decider.evolve, decider.initialState());
          const out = decider.decide(command, state);
          return Array.isArray(out) ? out : [out];
        };
        return {
          then: (expected: Event[]) => expect(act()).toEqual(expected),
          thenThrows: (errorClass: abstract new (...args: never[]) => Error, message?: RegExp) => {
            expect(act).toThrow(errorClass);
            if (message) expect(act).toThrow(message);
          },
        };
      },
    }),
  };
}
