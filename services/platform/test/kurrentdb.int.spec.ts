import { freePort } from '@baret/platform/testing';
import { isUnavailable, KurrentEventStore, type EventStore } from '@baret/platform';
import { eventStoreContract } from '@baret/platform/testing';
import { describe, expect, it } from 'vitest';

// KurrentDB ships as Docker images only: it cannot run on the machines this suite is built on. The
// contract suite runs wherever a server is given, with the same variable the services read.
const url = process.env.EVENTSTORE_URL ?? process.env.KURRENTDB_URL;
if (!url) console.warn('SKIPPED: KurrentDB event store contract — no KurrentDB server here; set EVENTSTORE_URL (e.g. kurrentdb://localhost:2113?tls=false) to run it');

describe.skipIf(!url)('KurrentDB', () => {
  eventStoreContract('KurrentDB (EVENTSTORE_URL)', async () => {
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

describe('KurrentDB connection check at start (runs everywhere)', () => {
  it('refuses the deprecated esdb:// scheme, saying what to write instead', async () => {
    await expect(KurrentEventStore.connect('esdb://localhost:2113?tls=false')).rejects.toThrow(/deprecated esdb:\/\/ scheme: write kurrentdb:\/\//);
    await expect(KurrentEventStore.connect('http://localhost:2113')).rejects.toThrow(/must be a KurrentDB connection string/);
  });

  it('says clearly that no server answers (and that it is an outage, so the service waits for it), instead of starting and crashing later', async () => {
    const port = await freePort();
    const failure = await KurrentEventStore.connect(`kurrentdb://admin:secret@127.0.0.1:${port}?tls=false`).then(() => null, (e: unknown) => e as Error);
    expect(failure?.message).toMatch(new RegExp(`KurrentDB at kurrentdb://127\\.0\\.0\\.1:${port}\\?tls=false is not reachable`));
    expect(failure?.message).not.toContain('secret');
    expect(isUnavailable(failure)).toBe(true);
  }, 60_000);
});
