/**
 * Wakes waiters when something was appended, so subscribers follow live without busy polling.
 * A timeout bounds every wait, in case a write came from outside this process.
 *
 * A reader takes {@link version} before it looks for new rows and waits with it: whatever was
 * appended after that look (while it handled the rows, say) ends the wait at once. Without it a
 * notification that came while nobody waited was lost, and the reader slept the whole timeout with
 * a message waiting (a second of delay on every job step that followed another within a handler's time).
 */
export class Notifier {
  private waiters = new Set<() => void>();
  private notified = 0;

  /** `pollMs`: how long a wait lasts without a notification (a write from another process wakes nobody). */
  constructor(private readonly pollMs = 1000) {}

  /** How many notifications so far: read it before looking for new rows, then pass it to {@link wait}. */
  get version(): number {
    return this.notified;
  }

  notify(): void {
    this.notified++;
    const current = this.waiters;
    this.waiters = new Set();
    for (const wake of current) wake();
  }

  /** Resolves on the next notification, at once if one came since `since` (a {@link version}), or after the poll. */
  wait(since: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted || since !== this.notified) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
