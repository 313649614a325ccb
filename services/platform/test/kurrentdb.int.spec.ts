import { KurrentEventStore, type EventStore } from '@baret/platform';
import { eventStoreContract } from '@baret/platform/testing';
import { describe } from 'vitest';

// KurrentDB ships as Docker images only: it cannot run on the machines this suite is built on.
const url = process.env.KURRENTDB_URL;
if (!url) console.warn('SKIPPED: KurrentDB event store contract — set KURRENTDB_URL (e.g. kurrentdb://localhost:2113?tls=false) to run it against a KurrentDB server');

describe.skipIf(!url)('KurrentDB', () => {
  eventStoreContract('KurrentDB (KURRENTDB_URL)', async () => {
    let store: EventStore = await KurrentEventStore.connect(url!);
    return {
      get store() {
        return store;
      },
      restart: async () => {
        await store.close();
        store = await KurrentEventStore.connect(url!);
        return store;
      },
      dispose: () => store.close(),
    };
  });
});
