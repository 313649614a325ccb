import { Type, type Static } from '@sinclair/typebox';

/** Schemas more than one service answers with. */

/**
 * Nullable request fields as JSON Schema type arrays. An anyOf union would let Ajv's type
 * coercion turn `null` into `0` or `""` before the null branch is tried.
 */
export const NullableInteger = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });
export const NullableString = (options: { minLength?: number; maxLength?: number; description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
/** Nullable fields in answers (response schemas are serialised, not coerced). */
export const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Number>>(t: T) =>
  Type.Union([t, Type.Null()]);

export const QuotaSchema = Type.Object(
  {
    plan_name: Type.String(),
    daily_limit: Nullable(Type.Integer()),
    monthly_limit: Nullable(Type.Integer()),
    lifetime_limit: Nullable(Type.Integer()),
    daily_used: Type.Integer(),
    monthly_used: Type.Integer(),
    lifetime_used: Type.Integer(),
    can_analyze: Type.Boolean(),
  },
  { $id: 'Quota', description: 'Limits (null = unlimited) and usage; daily resets 00:00 UTC, monthly on the 1st UTC' },
);
export type QuotaBody = Static<typeof QuotaSchema>;

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Optional(Type.String()),
    instance: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { description: 'RFC 7807 problem details' },
);

/** Common error answers for a route's response schema. */
export const problems = (...codes: number[]): Record<number, typeof ProblemSchema> =>
  Object.fromEntries(codes.map((c) => [c, ProblemSchema]));

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** What `finiteNumbers` needs of an Ajv instance (kept structural: the gateway owns Ajv). */
interface AjvLike {
  addKeyword(definition: { keyword: string; schemaType?: string; errors?: boolean; validate: (schema: unknown, data: unknown) => boolean }): unknown;
  compile: (schema: unknown, meta?: boolean) => unknown;
}

const FINITE = 'x-finite';

/** A copy of `schema` in which every number and integer must also be finite. */
function markFinite(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(markFinite);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'default' || k === 'enum' || k === 'const' || k === 'examples' ? v : markFinite(v);
  const types = ([] as unknown[]).concat(out.type);
  if (types.includes('number') || types.includes('integer')) out[FINITE] = true;
  return out;
}

/**
 * An Ajv plugin: numbers in requests must be finite. With type coercion Ajv turns "Infinity" and
 * "1e999" into Infinity, which then passed `maximum` (seen on `?limit=Infinity`) and reached the
 * database as a 500. Every schema Ajv compiles gets the check; the schemas themselves (and so the
 * OpenAPI document) are left as they are.
 */
export function finiteNumbers(instance: object): void {
  const ajv = instance as AjvLike;
  ajv.addKeyword({ keyword: FINITE, schemaType: 'boolean', errors: false, validate: (_s, data) => typeof data !== 'number' || Number.isFinite(data) });
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (schema: unknown, meta?: boolean) => compile(markFinite(schema), meta);
}
