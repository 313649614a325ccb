/**
 * A use case is a plain function whose first parameter is what it depends on (`deps`). The
 * service hands the dependencies in once, at composition, and callers see the use case as before.
 */
export function withDeps<D, A extends unknown[], R>(deps: D, useCase: (deps: D, ...args: A) => R): (...args: A) => R {
  return (...args: A) => useCase(deps, ...args);
}
