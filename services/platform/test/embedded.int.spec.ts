import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}, { caughtUp: true });

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
