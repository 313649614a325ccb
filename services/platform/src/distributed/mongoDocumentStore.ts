import { MongoClient, type Db, type Filter as MongoFilter, type Sort } from 'mongodb';
import { KeyedMutex } from '../decider.js';
import type { Collection, Document, DocumentStore, FieldCondition, Filter, Query } from '../ports/documentStore.js';

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const COLLECTION = /^[A-Za-z_][A-Za-z0-9_-]{0,100}$/;

function field(name: string): string {
  if (!FIELD.test(name)) throw new Error(`invalid field path: ${name}`);
  return name;
}

function condition(cond: FieldCondition): unknown {
  if (cond === null || typeof cond !== 'object') return cond;
  if ('$in' in cond) return { $in: [...cond.$in] };
  if ('$ne' in cond) return { $ne: cond.$ne };
  const out: Record<string, unknown> = {};
  for (const op of ['$gt', '$gte', '$lt', '$lte'] as const) if (cond[op] !== undefined) out[op] = cond[op];
  return Object.keys(out).length ? out : undefined; // an empty range matches everything, as in SQLite
}

function toMongo(where: Filter | undefined, search?: Query['search']): MongoFilter<StoredDoc> {
  const filter: Record<string, unknown> = {};
  for (const [name, cond] of Object.entries(where ?? {})) {
    const c = condition(cond);
    if (c !== undefined) filter[field(name)] = c;
  }
  if (search && search.text.trim() !== '' && search.fields.length > 0) {
    const pattern = search.text.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    filter.$or = search.fields.map((f) => ({ [field(f)]: { $regex: pattern, $options: 'i' } }));
  }
  return filter as MongoFilter<StoredDoc>;
}

type StoredDoc = Record<string, unknown> & { _id: string };

/**
 * An array inside an array is stored as `{ __array: [...] }`: FerretDB 1.x refuses nested arrays
 * ("nested arrays are not supported"), and read models hold some (a job's required equipment
 * groups). Read back, the wrapper is undone, so services never see it; no query filters on such a
 * field.
 */
const NESTED = '__array';
function encode(value: unknown, inArray = false): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => encode(v, true));
    return inArray ? { [NESTED]: items } : items;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
  }
  return value;
}
function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]![0] === NESTED && Array.isArray(entries[0]![1])) return decode(entries[0]![1]);
    return Object.fromEntries(entries.map(([k, v]) => [k, decode(v)]));
  }
  return value;
}

function strip<T extends Document>(doc: StoredDoc | null): T | null {
  if (!doc) return null;
  const { _id: _ignored, ...rest } = doc;
  return decode(rest) as T;
}

/**
 * putIfNewer's writes per document, one at a time in this process: MongoDB applies the filtered
 * replace atomically, but FerretDB 1.x matches and replaces in two steps, so two racing writers
 * could both match the older revision (the contract suite caught it). Across processes the filter
 * is what keeps the order (on MongoDB).
 */
const revisionLocks = new KeyedMutex();

class MongoCollection<T extends Document> implements Collection<T> {
  constructor(private readonly db: Db, private readonly name: string) {}

  private get c() {
    return this.db.collection<StoredDoc>(this.name);
  }

  async get(id: string): Promise<T | null> {
    return strip<T>(await this.c.findOne({ _id: id }));
  }

  async put(id: string, doc: T): Promise<void> {
    try {
      await this.c.replaceOne({ _id: id }, { ...(encode(doc) as T), _id: id }, { upsert: true });
    } catch (e) {
      // Two upserts of a new _id at once (a projection applied inline and by its catch-up runner):
      // one inserts, the other fails on the duplicate key, and then finds the document to replace.
      if ((e as { code?: number }).code !== 11000) throw e;
      await this.c.replaceOne({ _id: id }, { ...(encode(doc) as T), _id: id }, { upsert: true });
    }
  }

  putIfNewer(id: string, doc: T & { revision: number }): Promise<boolean> {
    return revisionLocks.run(`${this.db.databaseName}/${this.name}/${id}`, () => this.replaceIfNewer(id, doc));
  }

  private async replaceIfNewer(id: string, doc: T & { revision: number }): Promise<boolean> {
    // Matches only an older (or revision-less) document; when a newer one is there, the upsert's
    // insert of the same _id fails on the duplicate key: nothing is written. A duplicate key can
    // also mean another writer inserted the first version meanwhile: then once more, against it.
    const older = { _id: id, $or: [{ revision: { $lt: doc.revision } }, { revision: { $exists: false } }, { revision: null }] } as MongoFilter<StoredDoc>;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.c.replaceOne(older, { ...(encode(doc) as T), _id: id }, { upsert: true });
        return res.matchedCount + res.upsertedCount > 0;
      } catch (e) {
        if ((e as { code?: number }).code !== 11000) throw e;
        if (attempt >= 1) return false;
      }
    }
  }

  async insert(id: string, doc: T): Promise<boolean> {
    // The unique _id decides, on MongoDB and on FerretDB alike (its backend's primary key).
    try {
      await this.c.insertOne({ ...(encode(doc) as T), _id: id });
      return true;
    } catch (e) {
      if ((e as { code?: number }).code !== 11000) throw e;
      return false;
    }
  }

  async delete(id: string): Promise<boolean> {
    return (await this.c.deleteOne({ _id: id })).deletedCount > 0;
  }

  async find(query: Query = {}): Promise<T[]> {
    const sort: Sort = Object.fromEntries([
      ...(query.orderBy ?? []).map((o) => [field(o.field), o.direction === 'desc' ? -1 : 1] as const),
      ['_id', 1] as const,
    ]);
    let cursor = this.c.find(toMongo(query.where, query.search)).sort(sort);
    if (query.offset) cursor = cursor.skip(query.offset);
    if (query.limit !== undefined) cursor = cursor.limit(query.limit);
    return (await cursor.toArray()).map((d) => strip<T>(d)!);
  }

  async count(where?: Filter): Promise<number> {
    return this.c.countDocuments(toMongo(where));
  }

  async deleteMany(where: Filter): Promise<number> {
    return (await this.c.deleteMany(toMongo(where))).deletedCount;
  }
}

/**
 * The DocumentStore port on MongoDB (or anything speaking its wire protocol, FerretDB included):
 * one MongoDB collection per read-model collection, documents keyed by `_id`, the port's filters,
 * case-insensitive search (an escaped regular expression), sorting, paging and counts translated
 * one to one.
 */
export class MongoDocumentStore implements DocumentStore {
  private constructor(private readonly client: MongoClient, private readonly db: Db) {}

  static async connect(url: string, database: string): Promise<MongoDocumentStore> {
    // While the server is down, an operation fails within a second (a 503 for a request, a retry for
    // a background task) instead of waiting 30 s for it; the client reconnects by itself.
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 1000, connectTimeoutMS: 5000 });
    // The driver's own error events (a lost connection) must never reach the process as unhandled.
    client.on('error', () => undefined);
    await client.connect();
    return new MongoDocumentStore(client, client.db(database));
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    if (!COLLECTION.test(name)) throw new Error(`invalid collection name: ${name}`);
    return new MongoCollection<T>(this.db, name);
  }

  /** Creates the indexes a read model's queries need (idempotent). */
  async ensureIndexes(name: string, indexes: ReadonlyArray<Record<string, 1 | -1>>): Promise<void> {
    for (const keys of indexes) await this.db.collection(name).createIndex(keys);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
