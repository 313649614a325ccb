import { isUnavailable, MongoDocumentStore } from '@baret/platform';
import { documentStoreContract, engineInstalled, ferretDbBinary, startFerretDb, waitUntil } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const installed = engineInstalled('MongoDB document store contract on FerretDB', ferretDbBinary() !== null, 'FerretDB');
const mongodUrl = process.env.MONGODB_URL;
if (!mongodUrl) console.warn('SKIPPED: MongoDB document store contract on a real mongod — set MONGODB_URL to run it');

let ferret: Awaited<ReturnType<typeof startFerretDb>> | undefined;
let n = 0;
beforeAll(async () => {
  if (installed) ferret = await startFerretDb();
}, 120_000);
afterAll(async () => {
  await ferret?.stop();
});

const contract = (name: string, url: () => string) =>
  documentStoreContract(name, async () => {
    const store = await MongoDocumentStore.connect(url(), `contract_${process.pid}_${++n}`);
    return { store, collection: (name: string) => `${name}_${n}`, dispose: () => store.close() };
  });

describe.skipIf(!installed)('FerretDB', () => contract('MongoDB wire protocol (FerretDB 1.24, SQLite backend)', () => ferret!.url));
describe.skipIf(!mongodUrl)('mongod', () => contract('MongoDB (MONGODB_URL)', () => mongodUrl!));

describe.skipIf(!installed)('MongoDB document store through a FerretDB outage', () => {
  it('fails fast and honestly while the server is down (no hang, an error marked unavailable), and works again once it is back', async () => {
    const own = await startFerretDb();
    const store = await MongoDocumentStore.connect(own.url, 'outage');
    try {
      const docs = store.collection<{ n: number }>('docs');
      await docs.put('a', { n: 1 });
      own.kill('SIGKILL');
      await own.exited();
      const started = Date.now();
      const failure = await docs.get('a').then(() => null, (e: unknown) => e);
      // Not a timing assertion: only that it did not hang for the driver's default 30 s.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(isUnavailable(failure)).toBe(true);
      expect(isUnavailable(await store.ping().then(() => null, (e: unknown) => e))).toBe(true);
      await own.restart();
      await waitUntil(async () => (await docs.get('a'))?.n === 1, 60_000, () => 'the store did not come back');
      await docs.put('b', { n: 2 });
      expect((await docs.get('b'))?.n).toBe(2);
    } finally {
      await store.close();
      await own.stop();
    }
  }, 180_000);
});
