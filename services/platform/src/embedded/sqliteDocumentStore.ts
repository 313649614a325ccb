import type {
  Collection,
  Document,
  DocumentStore,
  FieldCondition,
  Filter,
  Query,
  Scalar,
} from '../ports/documentStore.js';
import type { SqliteDatabase } from './sqlite.js';

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function path(field: string): string {
  if (!FIELD.test(field)) throw new Error(`invalid field path: ${field}`);
  return `json_extract(data, '$.${field}')`;
}

/** SQLite has no booleans: JSON true/false come back from json_extract as 1/0. */
const sqlValue = (v: Scalar): string | number | null => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

function whereClause(where: Filter | undefined, params: unknown[]): string[] {
  const parts: string[] = [];
  for (const [field, cond] of Object.entries(where ?? {})) parts.push(condition(path(field), cond, params));
  return parts;
}

function condition(expr: string, cond: FieldCondition, params: unknown[]): string {
  if (cond === null) return `${expr} IS NULL`;
  if (typeof cond !== 'object') {
    params.push(sqlValue(cond));
    return `${expr} = ?`;
  }
  if ('$in' in cond) {
    if (cond.$in.length === 0) return '0';
    params.push(...cond.$in.map(sqlValue));
    return `${expr} IN (${cond.$in.map(() => '?').join(', ')})`;
  }
  if ('$ne' in cond) {
    if (cond.$ne === null) return `${expr} IS NOT NULL`;
    params.push(sqlValue(cond.$ne));
    return `(${expr} IS NULL OR ${expr} <> ?)`;
  }
  const ops: Array<[keyof typeof cond, string]> = [['$gt', '>'], ['$gte', '>='], ['$lt', '<'], ['$lte', '<=']];
  const parts: string[] = [];
  for (const [key, op] of ops) {
    const v = cond[key];
    if (v !== undefined) {
      params.push(v);
      parts.push(`${expr} ${op} ?`);
    }
  }
  return parts.length ? parts.join(' AND ') : '1';
}

class SqliteCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly name: string,
  ) {}

  get(id: string): Promise<T | null> {
    const row = this.db
      .prepare<[string, string], { data: string }>('SELECT data FROM docs WHERE collection = ? AND id = ?')
      .get(this.name, id);
    return Promise.resolve(row ? (JSON.parse(row.data) as T) : null);
  }

  put(id: string, doc: T): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO docs (collection, id, data) VALUES (?, ?, ?)
         ON CONFLICT (collection, id) DO UPDATE SET data = excluded.data`,
      )
      .run(this.name, id, JSON.stringify(doc));
    return Promise.resolve();
  }

  putIfNewer(id: string, doc: T & { revision: number }): Promise<boolean> {
    const info = this.db
      .prepare(
        `INSERT INTO docs (collection, id, data) VALUES (?, ?, ?)
         ON CONFLICT (collection, id) DO UPDATE SET data = excluded.data
         WHERE coalesce(json_type(docs.data, '$.revision'), 'null') NOT IN ('integer', 'real')
            OR json_extract(docs.data, '$.revision') < json_extract(excluded.data, '$.revision')`,
      )
      .run(this.name, id, JSON.stringify(doc));
    return Promise.resolve(info.changes > 0);
  }

  insert(id: string, doc: T): Promise<boolean> {
    const info = this.db
      .prepare('INSERT INTO docs (collection, id, data) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO NOTHING')
      .run(this.name, id, JSON.stringify(doc));
    return Promise.resolve(info.changes > 0);
  }

  delete(id: string): Promise<boolean> {
    const info = this.db.prepare('DELETE FROM docs WHERE collection = ? AND id = ?').run(this.name, id);
    return Promise.resolve(info.changes > 0);
  }

  find(query: Query = {}): Promise<T[]> {
    const params: unknown[] = [this.name];
    const where = ['collection = ?', ...whereClause(query.where, params)];
    if (query.search && query.search.text.trim() !== '' && query.search.fields.length > 0) {
      const like = `%${query.search.text.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(
        `(${query.search.fields
          .map((f) => {
            params.push(like);
            return `lower(CAST(${path(f)} AS TEXT)) LIKE ? ESCAPE '\\'`;
          })
          .join(' OR ')})`,
      );
    }
    const order = (query.orderBy ?? [])
      .map((o) => `${path(o.field)} ${o.direction === 'desc' ? 'DESC' : 'ASC'}`)
      .concat('id ASC')
      .join(', ');
    let sql = `SELECT data FROM docs WHERE ${where.join(' AND ')} ORDER BY ${order}`;
    if (query.limit !== undefined || query.offset !== undefined) {
      sql += ' LIMIT ? OFFSET ?';
      params.push(query.limit ?? -1, query.offset ?? 0);
    }
    const rows = this.db.prepare<unknown[], { data: string }>(sql).all(...params);
    return Promise.resolve(rows.map((r) => JSON.parse(r.data) as T));
  }

  count(where?: Filter): Promise<number> {
    const params: unknown[] = [this.name];
    const clause = ['collection = ?', ...whereClause(where, params)].join(' AND ');
    const row = this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM docs WHERE ${clause}`).get(...params);
    return Promise.resolve(row?.n ?? 0);
  }

  deleteMany(where: Filter): Promise<number> {
    const params: unknown[] = [this.name];
    const clause = ['collection = ?', ...whereClause(where, params)].join(' AND ');
    return Promise.resolve(this.db.prepare(`DELETE FROM docs WHERE ${clause}`).run(...params).changes);
  }
}

export class SqliteDocumentStore implements DocumentStore {
  constructor(private readonly db: SqliteDatabase) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS docs (
        collection TEXT NOT NULL,
        id         TEXT NOT NULL,
        data       TEXT NOT NULL,
        PRIMARY KEY (collection, id)
      );
    `);
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return new SqliteCollection<T>(this.db, name);
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
