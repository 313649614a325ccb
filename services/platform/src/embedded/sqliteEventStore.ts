import { randomUUID } from 'node:crypto';
import { checkExpectedRevision, type AppendResult, type EventData, type EventStore, type ExpectedRevision, type RecordedEvent, type SubscribeOptions } from '../ports/eventStore.js';
import { Notifier } from './notifier.js';
import type { SqliteDatabase } from './sqlite.js';

interface EventRow {
  position: number;
  id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.id,
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  createdAt: new Date(row.created_at),
});

const BATCH = 500;

export class SqliteEventStore implements EventStore {
  private readonly notifier: Notifier;
  private open = true;
  private readonly appendTx: (streamId: string, events: readonly EventData[], expected: ExpectedRevision) => AppendResult;
  private readonly stmts;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: () => Date = () => new Date(),
    /** `pollMs`: how long a caught-up subscriber waits before it looks again unwoken ({@link Notifier}). */
    opts: { pollMs?: number } = {},
  ) {
    this.notifier = new Notifier(opts.pollMs);
    db.exec(`
      CREATE TABLE IF NOT EXISTS es_events (
        position   INTEGER PRIMARY KEY AUTOINCREMENT,
        id         TEXT NOT NULL,
        stream_id  TEXT NOT NULL,
        revision   INTEGER NOT NULL,
        type       TEXT NOT NULL,
        data       TEXT NOT NULL,
        metadata   TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS es_events_stream_event ON es_events (stream_id, id);
      -- The audit log is append-only (issue 30, docs/adr/0023): its events cannot be changed or removed.
      CREATE TRIGGER IF NOT EXISTS es_audit_no_update BEFORE UPDATE ON es_events WHEN OLD.stream_id LIKE 'audit-%'
        BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
      CREATE TRIGGER IF NOT EXISTS es_audit_no_delete BEFORE DELETE ON es_events WHEN OLD.stream_id LIKE 'audit-%'
        BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
    `);
    this.stmts = {
      lastRevision: db.prepare<[string], { revision: number }>(
        'SELECT revision FROM es_events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      existing: db.prepare<[string, string], { revision: number; position: number }>(
        'SELECT revision, position FROM es_events WHERE stream_id = ? AND id = ?',
      ),
      insert: db.prepare(
        `INSERT INTO es_events (id, stream_id, revision, type, data, metadata, created_at)
         VALUES (@id, @stream_id, @revision, @type, @data, @metadata, @created_at)`,
      ),
      readStream: db.prepare<[string, number], EventRow>(
        'SELECT * FROM es_events WHERE stream_id = ? AND revision >= ? ORDER BY revision',
      ),
      readAll: db.prepare<[number, number], EventRow>(
        'SELECT * FROM es_events WHERE position > ? ORDER BY position LIMIT ?',
      ),
    };
    this.appendTx = db.transaction((streamId: string, events: readonly EventData[], expected: ExpectedRevision) => {
      const last = this.stmts.lastRevision.get(streamId)?.revision ?? -1;
      // Idempotent retry: every event id already in the stream → the earlier append stands.
      const ids = events.map((e) => e.id).filter((id): id is string => id !== undefined);
      if (ids.length === events.length && ids.length > 0) {
        const found = ids.map((id) => this.stmts.existing.get(streamId, id));
        if (found.every((f) => f !== undefined)) {
          const lastFound = found[found.length - 1]!;
          return { nextExpectedRevision: last, position: lastFound.position };
        }
      }
      checkExpectedRevision(streamId, expected, last);
      let revision = last;
      let position = 0;
      const now = this.clock().toISOString();
      for (const event of events) {
        revision += 1;
        const info = this.stmts.insert.run({
          id: event.id ?? randomUUID(),
          stream_id: streamId,
          revision,
          type: event.type,
          data: JSON.stringify(event.data ?? null),
          metadata: JSON.stringify(event.metadata ?? {}),
          created_at: now,
        });
        position = Number(info.lastInsertRowid);
      }
      return { nextExpectedRevision: revision, position };
    });
  }

  appendToStream(
    streamId: string,
    events: readonly EventData[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    try {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      const result = this.appendTx(streamId, events, options.expectedRevision ?? 'any');
      this.notifier.notify();
      return Promise.resolve(result);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    return Promise.resolve(this.stmts.readStream.all(streamId, options.fromRevision ?? 0).map(toRecorded));
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    let after = options.fromPosition ?? 0;
    const { signal } = options;
    while (!signal?.aborted && this.open) {
      const seen = this.notifier.version;
      const rows = this.stmts.readAll.all(after, BATCH);
      for (const row of rows) {
        if (signal?.aborted) return;
        after = row.position;
        yield toRecorded(row);
      }
      if (rows.length < BATCH) {
        // Every event stored so far has been handled (the consumer's loop ran for each).
        options.onCaughtUp?.();
        await this.notifier.wait(seen, signal);
      }
    }
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.open = false;
    this.notifier.notify();
    return Promise.resolve();
  }
}

