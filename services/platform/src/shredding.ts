import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { AppendResult, EventData, EventStore, ExpectedRevision, RecordedEvent, SubscribeOptions } from './ports/eventStore.js';
import type { DocumentStore } from './ports/documentStore.js';
import type { SqliteDatabase } from './embedded/sqlite.js';

/**
 * Crypto-shredding (docs/adr/0025): the personal data in events is stored encrypted with a key per
 * subject ("job:<id>", "user:<id>"), kept in a key store apart from the events. Deleting a subject's
 * key leaves every copy of those payloads (the events, replicas, backups of the event store taken
 * without the key table) unreadable; readers then see the redacted form (the personal fields as
 * null, {} or []), so deciders, projections and replays keep working.
 */
export interface SubjectKeyStore {
  /** The subject's key, made on first use (one key even when two writers ask at once). */
  keyFor(subject: string): Promise<Buffer>;
  /** The subject's key, or null when it never existed or was shredded. */
  find(subject: string): Promise<Buffer | null>;
  /** Deletes the key for good (idempotent); returns whether one was deleted. */
  shred(subject: string): Promise<boolean>;
}

/** A small in-process cache over a key store: lookups on replay are frequent, keys are few. Shredding evicts at once. */
class CachedKeys implements SubjectKeyStore {
  private readonly cache = new Map<string, Buffer | null>();
  constructor(private readonly inner: SubjectKeyStore) {}
  async keyFor(subject: string): Promise<Buffer> {
    const hit = this.cache.get(subject);
    if (hit) return hit;
    const key = await this.inner.keyFor(subject);
    this.remember(subject, key);
    return key;
  }
  async find(subject: string): Promise<Buffer | null> {
    const hit = this.cache.get(subject);
    // A miss is not cached: another process may create the key a moment later.
    if (hit) return hit;
    const key = await this.inner.find(subject);
    if (key) this.remember(subject, key);
    return key;
  }
  async shred(subject: string): Promise<boolean> {
    this.cache.delete(subject);
    return this.inner.shred(subject);
  }
  /** Another process (a second replica) may shred a key this one cached: forget every key now and then. */
  forget(): void {
    this.cache.clear();
  }
  private remember(subject: string, key: Buffer) {
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(subject, key);
  }
}

/** Keys in the embedded SQLite file, table `es_subject_keys` (secure_delete overwrites a shredded key on disk). */
export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly stmts;
  constructor(db: SqliteDatabase) {
    db.exec(`CREATE TABLE IF NOT EXISTS es_subject_keys (subject TEXT PRIMARY KEY, key BLOB NOT NULL, created_at TEXT NOT NULL)`);
    // Deleted rows (a shredded key, an erased read model) are overwritten with zeros, not left in free pages.
    db.pragma('secure_delete = ON');
    this.stmts = {
      get: db.prepare<[string], { key: Buffer }>('SELECT key FROM es_subject_keys WHERE subject = ?'),
      insert: db.prepare('INSERT INTO es_subject_keys (subject, key, created_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO NOTHING'),
      delete: db.prepare('DELETE FROM es_subject_keys WHERE subject = ?'),
    };
  }
  keyFor(subject: string): Promise<Buffer> {
    this.stmts.insert.run(subject, randomBytes(32), new Date().toISOString());
    return Promise.resolve(this.stmts.get.get(subject)!.key);
  }
  find(subject: string): Promise<Buffer | null> {
    return Promise.resolve(this.stmts.get.get(subject)?.key ?? null);
  }
  shred(subject: string): Promise<boolean> {
    return Promise.resolve(this.stmts.delete.run(subject).changes > 0);
  }
}

/** Keys in PostgreSQL, table `subject_keys` in the service's event schema. */
export class PostgresSubjectKeyStore implements SubjectKeyStore {
  private ready: Promise<void> | null = null;
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}
  private get table() {
    return `"${this.schema}".subject_keys`;
  }
  private migrate(): Promise<void> {
    this.ready ??= this.pool
      .query(`CREATE TABLE IF NOT EXISTS ${this.table} (subject TEXT PRIMARY KEY, key BYTEA NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
      .then(() => undefined)
      .catch((e: unknown) => {
        this.ready = null;
        throw e;
      });
    return this.ready;
  }
  async keyFor(subject: string): Promise<Buffer> {
    await this.migrate();
    await this.pool.query(`INSERT INTO ${this.table} (subject, key) VALUES ($1, $2) ON CONFLICT (subject) DO NOTHING`, [subject, randomBytes(32)]);
    return (await this.find(subject))!;
  }
  async find(subject: string): Promise<Buffer | null> {
    await this.migrate();
    const res = await this.pool.query<{ key: Buffer }>(`SELECT key FROM ${this.table} WHERE subject = $1`, [subject]);
    return res.rows[0]?.key ?? null;
  }
  async shred(subject: string): Promise<boolean> {
    await this.migrate();
    const res = await this.pool.query(`DELETE FROM ${this.table} WHERE subject = $1`, [subject]);
    return (res.rowCount ?? 0) > 0;
  }
}

interface KeyDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  key: string;
}

/**
 * Keys in a document store collection: for event stores without tables of their own (KurrentDB),
 * the keys live in the service's MongoDB database, apart from the events all the same.
 */
export class DocumentSubjectKeyStore implements SubjectKeyStore {
  constructor(private readonly documents: DocumentStore) {}
  private get keys() {
    return this.documents.collection<KeyDoc>('es_subject_keys');
  }
  async keyFor(subject: string): Promise<Buffer> {
    // Of two writers racing, the first key stands (putIfNewer with the same revision writes once).
    await this.keys.putIfNewer(subject, { id: subject, revision: 1, key: randomBytes(32).toString('base64') });
    return (await this.find(subject))!;
  }
  async find(subject: string): Promise<Buffer | null> {
    const doc = await this.keys.get(subject);
    return doc ? Buffer.from(doc.key, 'base64') : null;
  }
  shred(subject: string): Promise<boolean> {
    return this.keys.delete(subject);
  }
}

/** One sealed layer: which subject's key, which fields (and what they read as when the key is gone). */
export interface SealedLayer {
  s: string;
  /** Field → its redacted form: "o" {}, "a" [], "v" null. Names only, never values. */
  f: Record<string, 'o' | 'a' | 'v'>;
  iv: string;
  ct: string;
  tag: string;
}

export const SEALED = '$sealed';

/** What of an event is personal: layers from innermost to outermost, each a subject and its fields. */
export type SealPolicy = (streamId: string, type: string, data: Record<string, unknown>) => Array<{ subject: string; fields: string[] }>;

/** Fields of job events that stay readable for ever: ids, times, counts, settings, money. Everything else is sealed. */
const JOB_CLEAR = new Set([
  'job_id', 'user_id', 'org_id', 'site_id', 'crew_id', 'at', 'queued_at', 'attempt', 'refund', 'violation_count', 'params', 'video_key', 'video_size',
  'requested_by', 'deleted_by', 'reviewer_id', 'reason', 'prompt_tokens', 'completion_tokens', 'estimated_cost', 'model', 'currency', 'count', 'index', 'total',
  'job_type', 'sampling', 'duration', 'width', 'height', 'fps',
]);
/** Personal fields of user events. */
const USER_SEALED = ['email', 'full_name', 'password_hash', 'token'];
/** Who ran a job: sealed with the user's key inside the job's layer, so erasing either hides it. */
const JOB_USER_SEALED = ['user_email', 'user_full_name'];
/** Who reviewed a finding (issue 53): sealed with the reviewer's key inside the job's layer, as the owner's name is. */
const JOB_REVIEWER_SEALED = ['reviewer_email', 'reviewer_name'];

/** Baret's policy: user streams under the user's key; job streams under the job's key, the owner's name and address also under the user's. */
export const baretSealPolicy: SealPolicy = (streamId, _type, data) => {
  if (streamId.startsWith('user-')) {
    const fields = USER_SEALED.filter((f) => f in data);
    return fields.length ? [{ subject: `user:${streamId.slice(5)}`, fields }] : [];
  }
  if (streamId.startsWith('job-')) {
    const layers: Array<{ subject: string; fields: string[] }> = [];
    const userFields = JOB_USER_SEALED.filter((f) => f in data);
    if (userFields.length && typeof data.user_id === 'string') layers.push({ subject: `user:${data.user_id}`, fields: userFields });
    const reviewerFields = JOB_REVIEWER_SEALED.filter((f) => f in data);
    if (reviewerFields.length && typeof data.reviewer_id === 'string') layers.push({ subject: `user:${data.reviewer_id}`, fields: reviewerFields });
    const inner = layers.flatMap((l) => l.fields);
    const jobFields = Object.keys(data).filter((f) => !JOB_CLEAR.has(f) && !inner.includes(f));
    if (jobFields.length || layers.length) layers.push({ subject: `job:${streamId.slice(4)}`, fields: jobFields });
    return layers;
  }
  return [];
};

const kindOf = (v: unknown): 'o' | 'a' | 'v' => (Array.isArray(v) ? 'a' : v !== null && typeof v === 'object' ? 'o' : 'v');
const redactedValue = (k: 'o' | 'a' | 'v'): unknown => (k === 'o' ? {} : k === 'a' ? [] : null);

function encrypt(key: Buffer, plain: Record<string, unknown>): { iv: string; ct: string; tag: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

function decrypt(key: Buffer, layer: SealedLayer): Record<string, unknown> {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(layer.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(layer.tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(layer.ct, 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}

/** Seals an event's data by the policy (layer by layer, innermost first). */
export async function seal(keys: SubjectKeyStore, policy: SealPolicy, streamId: string, type: string, data: unknown): Promise<unknown> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  let current = data as Record<string, unknown>;
  if (SEALED in current) return current; // already sealed (a copy of a stored event)
  const layers = policy(streamId, type, current);
  let names: Record<string, 'o' | 'a' | 'v'> = {};
  for (const layer of layers) {
    const inside: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current)) (layer.fields.includes(k) || k === SEALED ? inside : rest)[k] = v;
    names = { ...names, ...Object.fromEntries(layer.fields.filter((f) => f in current).map((f) => [f, kindOf(current[f])])) };
    if (Object.keys(inside).length === 0) continue;
    const key = await keys.keyFor(layer.subject);
    const sealed: SealedLayer = { s: layer.subject, f: names, ...encrypt(key, inside) };
    current = { ...rest, [SEALED]: sealed };
  }
  return current;
}

/** Opens every layer whose key exists; a layer whose key is gone reads as its redacted fields. */
export async function unseal(keys: SubjectKeyStore, data: unknown): Promise<unknown> {
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !(SEALED in data)) return data;
  const { [SEALED]: layer, ...clear } = data as Record<string, unknown> & { [SEALED]: SealedLayer };
  const key = await keys.find(layer.s);
  if (!key) {
    const redacted = Object.fromEntries(Object.entries(layer.f).map(([f, k]) => [f, redactedValue(k)]));
    return { ...clear, ...redacted };
  }
  let inside: Record<string, unknown>;
  try {
    inside = decrypt(key, layer);
  } catch {
    // A key that does not open the layer (restored from another backup): as good as gone.
    return { ...clear, ...Object.fromEntries(Object.entries(layer.f).map(([f, k]) => [f, redactedValue(k)])) };
  }
  return unseal(keys, { ...clear, ...inside });
}

/** Whether an event's payload as stored still holds a sealed layer (for tests and the export). */
export const isSealed = (data: unknown): boolean => data !== null && typeof data === 'object' && SEALED in data;

/**
 * The EventStore port with crypto-shredding: appends seal by the policy, reads open what their keys
 * still open. Wraps any adapter; the keys live in the adapter's own database (SubjectKeyStore).
 */
export class ShreddingEventStore implements EventStore {
  readonly keys: SubjectKeyStore;
  private readonly cached: CachedKeys;
  private readonly forgetTimer: NodeJS.Timeout;
  constructor(
    private readonly inner: EventStore,
    keys: SubjectKeyStore,
    private readonly policy: SealPolicy = baretSealPolicy,
  ) {
    this.cached = new CachedKeys(keys);
    this.keys = this.cached;
    // A key shredded by another replica stops opening payloads here within a minute.
    this.forgetTimer = setInterval(() => this.cached.forget(), 60_000);
    this.forgetTimer.unref();
  }

  /** Deletes a subject's key: every payload sealed with it reads as redacted from now on, everywhere. */
  shred(subject: string): Promise<boolean> {
    return this.cached.shred(subject);
  }

  async appendToStream(streamId: string, events: readonly EventData[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    const sealed: EventData[] = [];
    for (const e of events) sealed.push({ ...e, data: await seal(this.cached, this.policy, streamId, e.type, e.data) });
    return this.inner.appendToStream(streamId, sealed, options);
  }

  private async open(e: RecordedEvent): Promise<RecordedEvent> {
    return isSealed(e.data) ? { ...e, data: await unseal(this.cached, e.data) } : e;
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    const events = await this.inner.readStream(streamId, options);
    const out: RecordedEvent[] = [];
    for (const e of events) out.push(await this.open(e));
    return out;
  }

  /** The events as stored, sealed layers and all (tests: nothing personal in the clear). */
  readStreamRaw(streamId: string): Promise<RecordedEvent[]> {
    return this.inner.readStream(streamId);
  }

  async *subscribeToAll(options?: SubscribeOptions): AsyncIterable<RecordedEvent> {
    for await (const e of this.inner.subscribeToAll(options)) yield await this.open(e);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    clearInterval(this.forgetTimer);
    return this.inner.close();
  }
}

/** The shredding side of an event store, when it has one (every Baret composition wraps its store). */
export const shredderOf = (store: EventStore): { shred(subject: string): Promise<boolean> } | null =>
  store instanceof ShreddingEventStore ? store : null;
