import { MongoDocumentStore } from '@baret/platform';
import { documentStoreContract, engineInstalled, ferretDbBinary, startFerretDb } from '@baret/platform/testing';
import { afterAll, beforeAll, describe } from 'vitest';

const installed = engineInstalled('MongoDB document store contract on FerretDB', ferretDbBinary() !== null, 'FerretDB');
const mongodUrl = process.env.MONGODB_URL;
if (!mongodUrl) console.warn('SKIPPED: MongoDB document store contract on a real mongod — set MONGODB_URL to run it');

let ferret: { url: string; stop(): Promise<void> } | undefined;
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
