import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsObjectStore, openSqlite, SqliteDocumentStore, SqliteEventStore, SqliteMessageBus, type SqliteDatabase } from '@baret/platform';
import { documentStoreContract, eventStoreContract, messageBusContract, objectStoreContract } from '@baret/platform/testing';

function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'baret-contract-'));
  const dbs: SqliteDatabase[] = [];
  const open = () => {
    const db = openSqlite(join(dir, 'baret.db'));
    dbs.push(db);
    return db;
  };
  const dispose = async () => {
    for (const db of dbs) if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, open, dispose };
}

eventStoreContract('embedded SQLite', async () => {
  const s = scratch();
  let store = new SqliteEventStore(s.open());
  return {
    get store() {
      return store;
    },
    restart: async () => {
      await store.close();
      store = new SqliteEventStore(s.open());
      return store;
    },
    dispose: async () => {
      await store.close();
      await s.dispose();
    },
  };
}, {
  caughtUp: true,
  polling: async (pollMs) => {
    const s = scratch();
    const store = new SqliteEventStore(s.open(), undefined, { pollMs });
    return {
      store,
      dispose: async () => {
        await store.close();
        await s.dispose();
      },
    };
  },
});

messageBusContract('embedded SQLite log', async () => {
  const s = scratch();
  let bus = new SqliteMessageBus(s.open());
  const abandoned: SqliteMessageBus[] = [];
  return {
    get bus() {
      return bus;
    },
    crashAndRestart: async () => {
      abandoned.push(bus); // never closed: its in-flight message stays uncommitted
      bus = new SqliteMessageBus(s.open());
      return bus;
    },
    topic: (name) => name,
    dispose: async () => {
      await bus.close();
      await s.dispose();
    },
  };
});

documentStoreContract('embedded SQLite', async () => {
  const s = scratch();
  return { store: new SqliteDocumentStore(s.open()), collection: (n) => n, dispose: s.dispose };
});

objectStoreContract('embedded folder', async () => {
  const s = scratch();
  return { store: await new FsObjectStore(join(s.dir, 'objects')).init(), dispose: s.dispose };
});

// A message published while the consumer handles the previous one must wake it: a notification
// nobody waited for was lost, and the consumer slept out its poll with the message waiting (a second
// on each job step that followed another). The poll is a minute here: only the wake-up delivers in time.
// (The event stores' same guarantee is in their contract, `polling`.)
describe('embedded log: a message published during handling is read at once', () => {
  const POLL_MS = 60_000;

  it('the message bus delivers a message published while the previous one is handled', async () => {
    const s = scratch();
    const bus = new SqliteMessageBus(s.open(), undefined, { pollMs: POLL_MS });
    try {
      let secondAfterMs = Number.NaN;
      let publishedAt = 0;
      const done = new Promise<void>((resolve) => {
        void bus.subscribe('g', ['t'], async (m) => {
          if (m.key === 'first') {
            publishedAt = Date.now();
            await bus.publish('t', [{ key: 'second', value: new Uint8Array([2]) }]);
            await new Promise((r) => setTimeout(r, 50)); // still handling the first when the second is out
          } else {
            secondAfterMs = Date.now() - publishedAt;
            resolve();
          }
        });
      });
      await bus.publish('t', [{ key: 'first', value: new Uint8Array([1]) }]);
      await done;
      expect(secondAfterMs).toBeLessThan(POLL_MS / 4);
      await bus.close();
    } finally {
      await s.dispose();
    }
  }, 2 * POLL_MS);
});
