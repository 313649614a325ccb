/**
 * Wakes waiters when something was appended, so subscribers follow live without busy polling.
 * A timeout bounds every wait, in case a write came from outside this process.
 */
export class Notifier {
  private waiters = new Set<() => void>();

  notify(): void {
    const current = this.waiters;
    this.waiters = new Set();
    for (const wake of current) wake();
  }

  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
