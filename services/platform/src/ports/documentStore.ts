/**
 * DocumentStore port for read models: documents by id in named collections, with the simple
 * filtered, searched, sorted and limited queries the product's pages need.
 *
 * Adapters: SQLite (embedded), MongoDB (distributed).
 */
export type Scalar = string | number | boolean | null;

export type FieldCondition =
  | Scalar
  | { $in: readonly Scalar[] }
  | { $ne: Scalar }
  | { $gt?: number | string; $gte?: number | string; $lt?: number | string; $lte?: number | string };

/** Field paths may be dotted ("quota.plan_name"); all conditions must hold. */
export type Filter = Record<string, FieldCondition>;

export interface Query {
  where?: Filter;
  /** Case-insensitive substring match of `text` in any of `fields`. */
  search?: { text: string; fields: readonly string[] };
  orderBy?: ReadonlyArray<{ field: string; direction?: 'asc' | 'desc' }>;
  limit?: number;
  offset?: number;
}

export type Document = Record<string, unknown>;

export interface Collection<T extends Document = Document> {
  get(id: string): Promise<T | null>;
  /** Insert or replace. */
  put(id: string, doc: T): Promise<void>;
  /**
   * Insert, or replace only when the stored document's numeric `revision` is lower than
   * `doc.revision` (or it has none), in one atomic step: of two writers racing, the older revision
   * never overwrites the newer. Returns whether the document was written.
   */
  putIfNewer(id: string, doc: T & { revision: number }): Promise<boolean>;
  /**
   * Insert only when no document has this id, in one atomic step, across processes: of writers
   * racing with one id, exactly one inserts. Returns whether this call inserted. (A claim: the
   * notification service's "this process sends this mail", docs/adr/0020.)
   */
  insert(id: string, doc: T): Promise<boolean>;
  /** Returns whether a document was deleted. */
  delete(id: string): Promise<boolean>;
  find(query?: Query): Promise<T[]>;
  count(where?: Filter): Promise<number>;
  deleteMany(where: Filter): Promise<number>;
}

export interface DocumentStore {
  collection<T extends Document = Document>(name: string): Collection<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
