import type { JobDoc } from './jobs.js';

/**
 * What the job service answers most often, kept in memory: a user's own job lists (`GET /jobs`,
 * the route the web app polls) and single jobs their owners look at (`GET /jobs/{id}`), dropped
 * when the jobs projection applies an event of one of that user's jobs (docs/adr/0019).
 *
 * Every replica's catch-up runner applies every job event (whichever replica's command recorded
 * it) and the command's own replica applies it inline before its answer, so an entry is dropped
 * on every replica after the read model has the change: at once on the replica that ran the
 * command (read-your-writes), within the runner's lag (a LISTEN round trip, at most its one-second
 * poll) on the others. A read during which its user's or job's entry was dropped is answered but
 * not kept (it may predate the change).
 *
 * Used only while the invalidations are current: the runner tells the cache each time it has
 * applied every stored event (`caughtUp`, at least once a second while the event store answers);
 * with no such word for `liveMs` (the store unreachable, the runner failing or far behind) or once
 * the runner stopped, nothing is served or kept, and what was kept is dropped when the runner is
 * back. Entries expire after `ttlMs` in any case; sizes are bounded (least recently used go first).
 */
export interface JobReadCacheOptions {
  /** Most list items held in all (READ_CACHE_ITEMS); 0 turns the cache off. Default 20,000. */
  maxItems?: number;
  /** Most single jobs held (full documents, results included). Default a twentieth of maxItems. */
  maxJobs?: number;
  /** Longest an entry is used (a safety net). Default 60 s. */
  ttlMs?: number;
  /** How long after the runner last caught up the cache is used. Default 3 s. */
  liveMs?: number;
  now?: () => number;
}

interface Timed<T> {
  value: T;
  at: number;
}

interface Read {
  spoiled: boolean;
}

export class JobReadCache {
  /** By user, then by query (and language): the items of a list. Map order: least recently used first. */
  private readonly lists = new Map<string, Map<string, Timed<readonly unknown[]>>>();
  private readonly jobs = new Map<string, Timed<JobDoc>>();
  private items = 0;
  /** Reads under way, by `u:<user>` or `j:<job>`: a change (or a clear) while one is on spoils it. */
  private readonly pending = new Map<string, Set<Read>>();
  private caughtUpAt = Number.NEGATIVE_INFINITY;
  private running = false;
  private readonly maxItems: number;
  private readonly maxJobs: number;
  private readonly ttlMs: number;
  private readonly liveMs: number;
  private readonly now: () => number;

  constructor(options: JobReadCacheOptions = {}) {
    this.maxItems = options.maxItems ?? 20_000;
    this.maxJobs = options.maxJobs ?? Math.floor(this.maxItems / 20);
    this.ttlMs = options.ttlMs ?? 60_000;
    this.liveMs = options.liveMs ?? 3_000;
    this.now = options.now ?? Date.now;
  }

  /** The runner has applied every stored event. After a time without this word, start from nothing. */
  caughtUp(): void {
    if (!this.live) this.clear();
    this.running = true;
    this.caughtUpAt = this.now();
  }

  /** The runner stopped (failed, or the process stops): nothing is used until it is back. */
  stopped(): void {
    this.running = false;
    this.clear();
  }

  /** Whether entries may be used and kept now. */
  get live(): boolean {
    return this.maxItems > 0 && this.running && this.now() - this.caughtUpAt <= this.liveMs;
  }

  /** An event of this job was applied: its entry and its owners' lists go. */
  changed(jobId: string, owners: Iterable<string>): void {
    this.spoil(`j:${jobId}`);
    this.jobs.delete(jobId);
    for (const userId of new Set(owners)) {
      this.spoil(`u:${userId}`);
      this.dropUser(userId);
    }
  }

  clear(): void {
    this.lists.clear();
    this.jobs.clear();
    this.items = 0;
    for (const reads of this.pending.values()) for (const read of reads) read.spoiled = true;
  }

  /** Entries held: users with lists, their items, and single jobs (tests look). */
  get size(): { users: number; items: number; jobs: number } {
    return { users: this.lists.size, items: this.items, jobs: this.jobs.size };
  }

  /** A list of the user's own jobs: kept under `key` (the query and the reader's language), or loaded. */
  async list<T>(userId: string, key: string, load: () => Promise<T[]>): Promise<T[]> {
    if (this.live) {
      const byKey = this.lists.get(userId);
      const hit = byKey?.get(key);
      if (hit && this.now() - hit.at <= this.ttlMs) {
        this.touch(this.lists, userId, byKey!);
        return hit.value as T[];
      }
    } else if (this.items + this.jobs.size > 0) this.clear();
    return this.read(`u:${userId}`, load, (items) => {
      if (items.length > this.maxItems) return;
      let byKey = this.lists.get(userId);
      if (!byKey) byKey = new Map();
      const old = byKey.get(key);
      if (old) this.items -= old.value.length;
      byKey.set(key, { value: items, at: this.now() });
      this.items += items.length;
      this.touch(this.lists, userId, byKey);
      for (const [oldest, lists] of this.lists) {
        if (this.items <= this.maxItems || oldest === userId) break;
        this.dropUser(oldest, lists);
      }
    });
  }

  /**
   * A job by id. A kept one is used only where `usable` says so (its owner's request); a job is
   * kept only when `usable` holds for the request that loaded it.
   */
  async job(jobId: string, load: () => Promise<JobDoc | null>, usable: (doc: JobDoc) => boolean): Promise<JobDoc | null> {
    if (this.live) {
      const hit = this.jobs.get(jobId);
      if (hit && this.now() - hit.at <= this.ttlMs && usable(hit.value)) {
        this.touch(this.jobs, jobId, hit);
        return hit.value;
      }
    } else if (this.items + this.jobs.size > 0) this.clear();
    return this.read(`j:${jobId}`, load, (doc) => {
      if (!doc || !usable(doc)) return;
      this.jobs.delete(jobId);
      this.jobs.set(jobId, { value: doc, at: this.now() });
      for (const oldest of this.jobs.keys()) {
        if (this.jobs.size <= this.maxJobs) break;
        this.jobs.delete(oldest);
      }
    });
  }

  private async read<T>(key: string, load: () => Promise<T>, keep: (value: T) => void): Promise<T> {
    const read: Read = { spoiled: !this.live };
    let reads = this.pending.get(key);
    if (!reads) this.pending.set(key, (reads = new Set()));
    reads.add(read);
    try {
      const value = await load();
      if (!read.spoiled && this.live) keep(value);
      return value;
    } finally {
      reads.delete(read);
      if (reads.size === 0 && this.pending.get(key) === reads) this.pending.delete(key);
    }
  }

  private spoil(key: string): void {
    for (const read of this.pending.get(key) ?? []) read.spoiled = true;
  }

  private dropUser(userId: string, lists = this.lists.get(userId)): void {
    if (!lists) return;
    for (const entry of lists.values()) this.items -= entry.value.length;
    this.lists.delete(userId);
  }

  /** Most recently used last (Map order). */
  private touch<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
  }
}
