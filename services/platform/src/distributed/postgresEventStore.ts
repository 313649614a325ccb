import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { checkExpectedRevision, type AppendResult, type EventData, type EventStore, type ExpectedRevision, type RecordedEvent, type SubscribeOptions } from '../ports/eventStore.js';
import { Notifier } from '../embedded/notifier.js';
import { backoffMs, isUnavailable, pause } from '../unavailable.js';
import { PostgresSubjectKeyStore } from '../shredding.js';

interface EventRow {
  position: string;
  id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.id,
  streamId: row.stream_id,
  revision: row.revision,
  position: Number(row.position),
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  createdAt: row.created_at,
});

const BATCH = 500;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The EventStore port on PostgreSQL (docs/adr/0009): one table of events with a unique
 * (stream, revision) for optimistic concurrency, and a global position handed out from a
 * one-row counter inside the append transaction. The counter's row lock serialises appends, so
 * positions become visible in the order they were given: a catch-up reader that has seen position
 * n never later finds a committed event below n (a plain sequence does not promise that: a
 * transaction holding a lower value can commit after one holding a higher value). Subscribers
 * follow with LISTEN/NOTIFY, and a bounded poll as a safety net. A listening connection that is
 * lost (the server restarted) is opened again with backoff, and subscribers then look for what they
 * missed at once.
 */
export class PostgresEventStore implements EventStore {
  private readonly notifier: Notifier;
  private listener: pg.Client | null = null;
  private relistening = false;
  private open = true;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly clock: () => Date,
    private readonly url: string,
    /** How long a caught-up subscriber waits before it looks again without a notification. */
    pollMs?: number,
  ) {
    this.notifier = new Notifier(pollMs);
  }

  static async connect(url: string, opts: { schema?: string; clock?: () => Date; pollMs?: number } = {}): Promise<PostgresEventStore> {
    const schema = opts.schema ?? 'baret_events';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
    // A server that is down is said at once (refused) or within the connection timeout, never hung on.
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
    pool.on('error', () => undefined); // an idle client lost its server: the pool replaces it
    // A client lent out (appends, the migration) that loses its server emits 'error' too, and the
    // pool listens only to idle ones: without a listener a PostgreSQL restart during an append threw
    // an uncaught exception. The query under way fails on its own; a broken client is dropped when released.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const store = new PostgresEventStore(pool, schema, opts.clock ?? (() => new Date()), url, opts.pollMs);
    try {
      await store.migrate();
      await store.listen();
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  private t(name: string): string {
    return `"${this.schema}".${name}`;
  }

  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      // Two services starting at once create the schema once.
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`baret-migrate-${this.schema}`]);
      await client.query(`
        CREATE SCHEMA IF NOT EXISTS "${this.schema}";
        CREATE TABLE IF NOT EXISTS ${this.t('events')} (
          position   BIGINT PRIMARY KEY,
          id         TEXT NOT NULL,
          stream_id  TEXT NOT NULL,
          revision   INTEGER NOT NULL,
          type       TEXT NOT NULL,
          data       JSONB NOT NULL,
          metadata   JSONB NOT NULL,
          created_at TIMESTAMPTZ NOT NULL,
          UNIQUE (stream_id, revision),
          UNIQUE (stream_id, id)
        );
        CREATE TABLE IF NOT EXISTS ${this.t('position')} (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), last BIGINT NOT NULL);
        INSERT INTO ${this.t('position')} (one, last) VALUES (TRUE, 0) ON CONFLICT DO NOTHING;
        -- The audit log is append-only (issue 30, docs/adr/0023): its events cannot be changed or removed.
        CREATE OR REPLACE FUNCTION "${this.schema}".audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'audit entries are append-only'; END $$;
        DROP TRIGGER IF EXISTS audit_append_only ON ${this.t('events')};
        CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON ${this.t('events')}
          FOR EACH ROW WHEN (OLD.stream_id LIKE 'audit-%') EXECUTE FUNCTION "${this.schema}".audit_append_only();
      `);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`baret-migrate-${this.schema}`]).catch(() => undefined);
      client.release();
    }
  }

  /** The crypto-shredding keys of this store's events, in a table of the same schema (docs/adr/0025). */
  subjectKeys(): PostgresSubjectKeyStore {
    return new PostgresSubjectKeyStore(this.pool, this.schema);
  }

  private get channel(): string {
    return `${this.schema}_appended`;
  }

  /** Whether the LISTEN connection is up (subscribers hear appends at once, not by polling). */
  get listening(): boolean {
    return this.listener !== null;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    client.on('notification', () => this.notifier.notify());
    client.on('error', () => this.relisten(client));
    client.on('end', () => this.relisten(client));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    this.listener = client;
  }

  /** The LISTEN connection was lost: open it again (backoff with jitter) for as long as the store is open. */
  private relisten(lost: pg.Client): void {
    if (!this.open || this.listener !== lost || this.relistening) return;
    this.listener = null;
    this.relistening = true;
    void lost.end().catch(() => undefined);
    void (async () => {
      for (let attempt = 0; this.open; attempt++) {
        await pause(backoffMs(attempt, 200, 5000));
        if (!this.open) break;
        try {
          await this.listen();
          // Appends made while nobody listened: subscribers look at once.
          this.notifier.notify();
          break;
        } catch {
          // still down: try again
        }
      }
      this.relistening = false;
    })();
  }

  async appendToStream(streamId: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Taking the counter's row first serialises appends (see the class comment).
      const counter = await client.query<{ last: string }>(`SELECT last FROM ${this.t('position')} WHERE one FOR UPDATE`);
      let position = Number(counter.rows[0]!.last);
      const lastRow = await client.query<{ revision: number }>(
        `SELECT revision FROM ${this.t('events')} WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1`,
        [streamId],
      );
      const last = lastRow.rows[0]?.revision ?? -1;
      // Idempotent retry: every event id already in the stream → the earlier append stands.
      const ids = events.map((e) => e.id).filter((id): id is string => id !== undefined);
      if (ids.length === events.length) {
        const found = await client.query<{ id: string; position: string }>(
          `SELECT id, position FROM ${this.t('events')} WHERE stream_id = $1 AND id = ANY($2::text[]) ORDER BY position`,
          [streamId, ids],
        );
        if (found.rows.length === new Set(ids).size) {
          await client.query('ROLLBACK');
          return { nextExpectedRevision: last, position: Number(found.rows.at(-1)!.position) };
        }
      }
      checkExpectedRevision(streamId, expected, last);
      let revision = last;
      const now = this.clock();
      for (const event of events) {
        revision += 1;
        position += 1;
        await client.query(
          `INSERT INTO ${this.t('events')} (position, id, stream_id, revision, type, data, metadata, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [position, event.id ?? randomUUID(), streamId, revision, event.type, JSON.stringify(event.data ?? null), JSON.stringify(event.metadata ?? {}), now],
        );
      }
      await client.query(`UPDATE ${this.t('position')} SET last = $1 WHERE one`, [position]);
      await client.query(`SELECT pg_notify($1, $2)`, [this.channel, String(position)]);
      await client.query('COMMIT');
      return { nextExpectedRevision: revision, position };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    const res = await this.pool.query<EventRow>(
      `SELECT * FROM ${this.t('events')} WHERE stream_id = $1 AND revision >= $2 ORDER BY revision`,
      [streamId, options.fromRevision ?? 0],
    );
    return res.rows.map(toRecorded);
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    let after = options.fromPosition ?? 0;
    const { signal } = options;
    let failures = 0;
    while (!signal?.aborted && this.open) {
      let res: pg.QueryResult<EventRow>;
      const seen = this.notifier.version;
      try {
        res = await this.pool.query<EventRow>(`SELECT * FROM ${this.t('events')} WHERE position > $1 ORDER BY position LIMIT ${BATCH}`, [after]);
        failures = 0;
      } catch (e) {
        // The server is down or restarting: wait and read on from the same position.
        if (!isUnavailable(e) || !this.open) throw e;
        await pause(backoffMs(failures++, 200, 5000), signal);
        continue;
      }
      for (const row of res.rows) {
        if (signal?.aborted) return;
        after = Number(row.position);
        yield toRecorded(row);
      }
      if (res.rows.length < BATCH) {
        // Every event stored so far has been handled (the consumer's loop ran for each).
        options.onCaughtUp?.();
        await this.notifier.wait(seen, signal);
      }
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    this.notifier.notify();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

