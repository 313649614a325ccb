import { isUnavailable, PostgresEventStore, type EventStore, type RecordedEvent } from '@baret/platform';
import { engineInstalled, eventStoreContract, postgresBinDir, startPostgres, waitUntil, type RunningPostgres } from '@baret/platform/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const installed = engineInstalled('PostgreSQL event store contract', postgresBinDir() !== null, 'PostgreSQL');

let server: RunningPostgres;
let schemas = 0;
beforeAll(async () => {
  if (installed) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(!installed)('PostgreSQL', () => {
  eventStoreContract('PostgreSQL', async () => {
    const schema = `contract_${++schemas}`;
    let store: EventStore = await PostgresEventStore.connect(server.url, { schema });
    return {
      get store() {
        return store;
      },
      restart: async () => {
        await store.close();
        store = await PostgresEventStore.connect(server.url, { schema });
        return store;
      },
      dispose: () => store.close(),
    };
  }, {
    caughtUp: true,
    polling: async (pollMs) => {
      const store = await PostgresEventStore.connect(server.url, { schema: `wake_${++schemas}`, pollMs });
      return { store, dispose: () => store.close() };
    },
  });

  it('refuses to change or delete an audit entry (issue 30), and still lets other streams be changed by an operator', async () => {
    const schema = `audit_${++schemas}`;
    const store = await PostgresEventStore.connect(server.url, { schema });
    // A second connection, twice: the trigger is created once whatever the number of services starting.
    await (await PostgresEventStore.connect(server.url, { schema })).close();
    await store.appendToStream('audit-e1', [{ id: 'e1', type: 'audit_recorded', data: { action: 'job.viewed' } }], { expectedRevision: 'no_stream' });
    await store.appendToStream('job-1', [{ type: 'job_queued', data: {} }]);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await expect(client.query(`UPDATE "${schema}".events SET data = '{}' WHERE stream_id = 'audit-e1'`)).rejects.toThrow(/append-only/);
      await expect(client.query(`DELETE FROM "${schema}".events WHERE stream_id = 'audit-e1'`)).rejects.toThrow(/append-only/);
      expect((await client.query(`UPDATE "${schema}".events SET data = '{"x":1}' WHERE stream_id = 'job-1'`)).rowCount).toBe(1);
      expect((await store.readStream('audit-e1')).map((e) => e.data)).toEqual([{ action: 'job.viewed' }]);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('a subscriber following from the start misses no event while 8 writers append at once (positions in commit order)', async () => {
    const schema = `race_${++schemas}`;
    const writers = await Promise.all(Array.from({ length: 8 }, () => PostgresEventStore.connect(server.url, { schema })));
    const reader = await PostgresEventStore.connect(server.url, { schema });
    const controller = new AbortController();
    const seen: RecordedEvent[] = [];
    const total = 8 * 40;
    const following = (async () => {
      for await (const e of reader.subscribeToAll({ signal: controller.signal })) {
        seen.push(e);
        if (seen.length === total) controller.abort();
      }
    })();
    await Promise.all(writers.map((w, k) => (async () => {
      for (let i = 0; i < 40; i++) await w.appendToStream(`job-${k}-${i % 4}`, [{ type: 'e', data: { k, i } }]);
    })()));
    await following;
    expect(seen).toHaveLength(total);
    const positions = seen.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(total);
    expect(positions.at(-1)).toBe(total); // no gaps
    for (const s of [...writers, reader]) await s.close();
  }, 120_000);

  it('an append whose connection the server ends mid-transaction fails as an error, never as an uncaught exception, and the next append works', async () => {
    const schema = `terminated_${++schemas}`;
    const store = await PostgresEventStore.connect(server.url, { schema });
    const uncaught: unknown[] = [];
    const record = (e: unknown) => uncaught.push(e);
    process.prependListener('uncaughtException', record);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await store.appendToStream('job-1', [{ type: 'e', data: {} }]);
      // Hold the position counter, so the next append waits inside its transaction on a client the pool has lent out.
      await admin.query('BEGIN');
      await admin.query(`SELECT last FROM "${schema}".position WHERE one FOR UPDATE`);
      const append = store.appendToStream('job-2', [{ type: 'e', data: {} }]).then(() => null, (e: unknown) => e);
      // Inside a transaction pg_stat_activity is a snapshot taken at its first read: cleared before each look.
      const waiting = async () => {
        await admin.query('SELECT pg_stat_clear_snapshot()');
        return (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' AND pid <> pg_backend_pid()`)).rows;
      };
      await waitUntil(async () => (await waiting()).length === 1, 30_000, () => 'the append never waited for the counter');
      const pid = (await waiting())[0]!.pid;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(await append).toBeInstanceOf(Error);
      await admin.query('ROLLBACK');
      await waitUntil(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, 30_000, () => 'the terminated backend is still there');
      await store.appendToStream('job-3', [{ type: 'e', data: {} }]);
      expect((await store.readStream('job-3')).length).toBe(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.removeListener('uncaughtException', record);
      await admin.end();
      await store.close();
    }
  }, 120_000);

  it('survives the server killed with SIGKILL and started again: the store says it is down, then LISTEN and a subscriber carry on by themselves', async () => {
    const own = await startPostgres();
    const store = await PostgresEventStore.connect(own.url, { schema: 'outage' });
    const controller = new AbortController();
    const seen: string[] = [];
    let failed: unknown = null;
    const following = (async () => {
      for await (const e of store.subscribeToAll({ signal: controller.signal })) seen.push(e.streamId);
    })().catch((e: unknown) => (failed = e));
    try {
      await store.appendToStream('job-before', [{ type: 'e', data: {} }]);
      await waitUntil(async () => seen.includes('job-before'), 30_000, () => `seen: ${seen.join(', ')}`);
      expect(store.listening).toBe(true);

      own.kill('SIGKILL');
      await own.exited();
      // The postmaster is gone; the backend of a pooled connection may answer a moment longer (it
      // notices its parent's death on its own time), so the store is asked until it says it is down.
      let down: unknown = null;
      await waitUntil(async () => (down = await store.ping().then(() => null, (e: unknown) => e)) !== null, 30_000, () => 'the store still answers after the kill');
      expect(isUnavailable(down)).toBe(true);
      const refused = await store.appendToStream('job-during', [{ type: 'e', data: {} }]).then(() => null, (e: unknown) => e);
      expect(isUnavailable(refused)).toBe(true);

      await own.restart();
      // The LISTEN connection comes back without anyone asking, and the subscriber never gave up.
      await waitUntil(async () => store.listening, 60_000, () => 'LISTEN not re-established after the restart');
      await store.ping();
      await store.appendToStream('job-after', [{ type: 'e', data: {} }]);
      await waitUntil(async () => seen.includes('job-after'), 60_000, () => `seen: ${seen.join(', ')}`);
      expect(failed).toBeNull();
      expect(seen).toEqual(['job-before', 'job-after']);
    } finally {
      controller.abort();
      await following;
      await store.close();
      await own.stop();
    }
  }, 180_000);
});
