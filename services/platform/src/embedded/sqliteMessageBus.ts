import type { Logger } from 'pino';
import {
  deadLetterTopic,
  type ConsumeOptions,
  type IncomingMessage,
  type MessageBus,
  type MessageHandler,
  type OutgoingMessage,
  type Subscription,
} from '../ports/messageBus.js';
import type { ConsumerLag } from '../metrics.js';
import { consumeSpan, withTraceHeaders } from '../telemetry.js';
import { Notifier } from './notifier.js';
import { backoffMs, briefError, isUnavailable } from '../unavailable.js';
import type { SqliteDatabase } from './sqlite.js';

interface LogRow {
  offset: number;
  topic: string;
  key: string;
  value: Buffer;
  headers: string;
}

const BATCH = 200;
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });

/**
 * The embedded message bus: a durable log in the SQLite file with one committed offset per
 * (group, topic). One process, one consumer per group; messages of a group are handled one at a
 * time in log order, which keeps the order of every key.
 */
export class SqliteMessageBus implements MessageBus {
  private readonly notifier: Notifier;
  private readonly activeGroups = new Map<string, readonly string[]>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly stmts;
  private readonly publishTx: (topic: string, messages: readonly OutgoingMessage[]) => void;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly log?: Logger,
    /** `pollMs`: how long an idle consumer waits before it looks again unwoken ({@link Notifier}). */
    opts: { pollMs?: number } = {},
  ) {
    this.notifier = new Notifier(opts.pollMs);
    db.exec(`
      CREATE TABLE IF NOT EXISTS bus_log (
        "offset"   INTEGER PRIMARY KEY AUTOINCREMENT,
        topic      TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      BLOB NOT NULL,
        headers    TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
      );
      CREATE INDEX IF NOT EXISTS bus_log_topic ON bus_log (topic, "offset");
      CREATE TABLE IF NOT EXISTS bus_offsets (
        group_id TEXT NOT NULL,
        topic    TEXT NOT NULL,
        "offset" INTEGER NOT NULL,
        PRIMARY KEY (group_id, topic)
      );
    `);
    this.stmts = {
      insert: db.prepare('INSERT INTO bus_log (topic, key, value, headers) VALUES (?, ?, ?, ?)'),
      committed: db.prepare<[string, string], { offset: number }>(
        'SELECT "offset" FROM bus_offsets WHERE group_id = ? AND topic = ?',
      ),
      behind: db.prepare<[string, number], { n: number }>('SELECT COUNT(*) AS n FROM bus_log WHERE topic = ? AND "offset" > ?'),
      commit: db.prepare(
        `INSERT INTO bus_offsets (group_id, topic, "offset") VALUES (?, ?, ?)
         ON CONFLICT (group_id, topic) DO UPDATE SET "offset" = excluded."offset"`,
      ),
    };
    this.publishTx = db.transaction((topic: string, messages: readonly OutgoingMessage[]) => {
      for (const m of messages) {
        // The active trace goes along in the headers (W3C traceparent), unless a message names its own.
        this.stmts.insert.run(topic, m.key, Buffer.from(m.value), JSON.stringify(withTraceHeaders(m.headers) ?? {}));
      }
    });
  }

  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    try {
      if (messages.length > 0) this.publishTx(topic, messages);
      this.notifier.notify();
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  subscribe(
    group: string,
    topics: readonly string[],
    handler: MessageHandler,
    options: ConsumeOptions = {},
  ): Promise<Subscription> {
    if (topics.length === 0) return Promise.reject(new Error('subscribe needs at least one topic'));
    if (this.activeGroups.has(group)) {
      return Promise.reject(new Error(`group ${group} already has a consumer in this process`));
    }
    this.activeGroups.set(group, topics);
    const maxAttempts = options.maxAttempts ?? 5;
    const retryDelayMs = options.retryDelayMs ?? 200;
    const controller = new AbortController();
    const { signal } = controller;

    const offsets = new Map<string, number>(
      topics.map((t) => [t, this.stmts.committed.get(group, t)?.offset ?? 0]),
    );
    const placeholders = topics.map(() => '(topic = ? AND "offset" > ?)').join(' OR ');
    const next = this.db.prepare<unknown[], LogRow>(
      `SELECT "offset", topic, key, value, headers FROM bus_log WHERE ${placeholders} ORDER BY "offset" LIMIT ${BATCH}`,
    );

    const handleWithRetries = async (row: LogRow): Promise<boolean> => {
      let failures = 0;
      let outages = 0;
      for (let attempt = 1; ; attempt++) {
        if (signal.aborted) return false;
        const message: IncomingMessage = {
          topic: row.topic,
          key: row.key,
          value: new Uint8Array(row.value),
          headers: JSON.parse(row.headers) as Record<string, string>,
          offset: String(row.offset),
          attempt,
        };
        try {
          await handler(message);
          return true;
        } catch (err) {
          // A dependency down is no failure of the message: it waits, and never goes to the dead letters for it.
          if (isUnavailable(err)) {
            const wait = backoffMs(outages++, retryDelayMs, 10_000);
            this.log?.warn({ error: briefError(err), group, topic: row.topic, offset: row.offset, retry_in_ms: wait }, 'message handler waits: a dependency is unavailable');
            await sleep(wait, signal);
            continue;
          }
          this.log?.warn({ err, group, topic: row.topic, offset: row.offset, attempt }, 'message handler failed');
          if (++failures >= maxAttempts) {
            this.publishTx(deadLetterTopic(row.topic), [
              { key: row.key, value: row.value, headers: { ...message.headers, 'x-error': String(err), 'x-group': group } },
            ]);
            this.log?.error({ group, topic: row.topic, offset: row.offset }, 'message moved to dead-letter topic');
            return true;
          }
          await sleep(retryDelayMs * 2 ** (failures - 1), signal);
        }
      }
    };

    const loop = async (): Promise<void> => {
      while (!signal.aborted) {
        const seen = this.notifier.version;
        const rows = next.all(...topics.flatMap((t) => [t, offsets.get(t) ?? 0]));
        for (const row of rows) {
          const headers = JSON.parse(row.headers) as Record<string, string>;
          const handled = await consumeSpan('sqlite', { topic: row.topic, headers, offset: String(row.offset) }, group, () => handleWithRetries(row));
          if (!handled) return; // closed mid-message: not committed, delivered again next time
          this.stmts.commit.run(group, row.topic, row.offset);
          offsets.set(row.topic, row.offset);
        }
        if (rows.length < BATCH) await this.notifier.wait(seen, signal);
      }
    };

    const running = loop().catch((err: unknown) => {
      this.log?.error({ err, group }, 'consumer loop stopped');
    });
    const subscription: Subscription = {
      close: async () => {
        controller.abort();
        await running;
        this.activeGroups.delete(group);
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return Promise.resolve(subscription);
  }

  /**
   * Deletes the messages every consumer group of their topic has committed (the log is an outbox,
   * not an archive: issue 30 — a person's data must not outlive its erasure in it). A topic no group
   * ever consumed keeps its messages. Deleted rows are overwritten on disk when the database runs
   * with secure_delete (the embedded composition's does). Returns how many went.
   */
  prune(): number {
    const result = this.db
      .prepare(
        `DELETE FROM bus_log WHERE "offset" <= (
           SELECT MIN(o."offset") FROM bus_offsets o WHERE o.topic = bus_log.topic
         )`,
      )
      .run();
    return result.changes;
  }

  /** Messages not yet committed by each group consuming in this process. */
  lag(): Promise<ConsumerLag[]> {
    const out: ConsumerLag[] = [];
    for (const [group, topics] of this.activeGroups) {
      for (const topic of topics) {
        const committed = this.stmts.committed.get(group, topic)?.offset ?? 0;
        out.push({ group, topic, lag: this.stmts.behind.get(topic, committed)?.n ?? 0 });
      }
    }
    return Promise.resolve(out);
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
  }
}
