import type { Logger } from 'pino';
import type { BackgroundTask } from './service.js';
import { backoffMs, briefError, isUnavailable, pause } from './unavailable.js';

/** A task that ran this long without failing starts its backoff from the beginning again. */
const HEALTHY_MS = 60_000;

/**
 * Runs a background task (relay, projection, consumer, worker) until `signal` aborts, starting it
 * again whenever it fails or ends by itself, after a growing, jittered pause (0.25 s … 10 s). Relays
 * and projections resume from their checkpoints, consumers from their committed offsets, so an
 * engine that blinks never stops a task for good, and never ends the process. An outage is a
 * warning without a stack; any other failure an error with its stack.
 */
export async function superviseTask(task: BackgroundTask, signal: AbortSignal, log?: Logger): Promise<void> {
  let attempt = 0;
  while (!signal.aborted) {
    const started = Date.now();
    let failure: unknown = null;
    try {
      await task.run(signal);
    } catch (err) {
      failure = err ?? new Error('unknown failure');
    }
    if (signal.aborted) return;
    if (Date.now() - started > HEALTHY_MS) attempt = 0;
    const wait = backoffMs(attempt++, 500, 10_000);
    if (failure === null) log?.warn({ task: task.name, retry_in_ms: wait }, 'background task ended by itself: starting it again');
    else if (isUnavailable(failure)) log?.warn({ task: task.name, error: briefError(failure), retry_in_ms: wait }, 'background task paused: a dependency is unavailable');
    else log?.error({ task: task.name, err: failure, retry_in_ms: wait }, 'background task failed: starting it again');
    await pause(wait, signal);
  }
}

/**
 * Keeps a process alive through what an engine outage throws outside any request or task (a
 * driver's rejected promise, an error event): logged as one JSON line, not a raw stack on stderr.
 * Anything else is a bug: logged, then the process exits for its supervisor to start it again.
 */
export function guardProcess(log: Logger): void {
  const onFailure = (kind: string) => (err: unknown) => {
    if (isUnavailable(err)) {
      log.warn({ error: briefError(err) }, `${kind} while a dependency is unavailable: carrying on`);
      return;
    }
    log.fatal({ err }, `${kind}: exiting`);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 100).unref();
  };
  process.on('unhandledRejection', onFailure('unhandled rejection'));
  process.on('uncaughtException', onFailure('uncaught exception'));
}
