/**
 * The answers Baret asks the vision model for, defined once with TypeBox: the same schema is sent
 * as the structured-output `json_schema` (strict) and checked on receipt with `Value.Check`, and
 * the TypeScript types derive from it.
 */
import { Kind, Type, TypeRegistry, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const STRING_ENUM = 'BaretStringEnum';

interface StringEnumSchema {
  enum: string[];
}

if (!TypeRegistry.Has(STRING_ENUM)) {
  TypeRegistry.Set<StringEnumSchema>(STRING_ENUM, (schema, value) => typeof value === 'string' && schema.enum.includes(value));
}

/**
 * A string that must be one of `values`, written as plain `{ "type": "string", "enum": [...] }`
 * (what OpenAI strict mode, vLLM and Ollama grammars understand best), not TypeBox's `anyOf` of consts.
 */
export function StringEnum(values: readonly string[], options: { description?: string } = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ [Kind]: STRING_ENUM, type: 'string', enum: [...values], ...options });
}

/** Answer to "which job is this?": one slug of the given task catalogue. */
export function classificationAnswerSchema(slugs: readonly string[]) {
  return Type.Object(
    {
      slug: StringEnum(slugs, { description: 'The slug of the job type that best matches the work shown.' }),
      confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How sure you are, from 0 to 1.' }),
    },
    { additionalProperties: false },
  );
}

/** Answer to "which of this equipment do you see in this grid of frames?". */
export function compositeAnswerSchema(codes: readonly string[], cellCount: number) {
  return Type.Object(
    {
      seen: Type.Array(
        Type.Object(
          {
            code: StringEnum(codes, { description: 'Code of equipment clearly worn or in use.' }),
            frame: Type.Integer({
              minimum: 1,
              maximum: Math.max(1, cellCount),
              description: 'Number of the grid cell (1-based) where it is seen most clearly.',
            }),
            confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How sure you are, from 0 to 1.' }),
          },
          { additionalProperties: false },
        ),
        { description: 'Each piece of equipment seen worn or in use, once per code.' },
      ),
      missing: Type.Array(StringEnum(codes), {
        description: 'Codes clearly absent on a visible worker (e.g. a bare head means no hard hat).',
      }),
      persons: Type.Integer({ minimum: 0, description: 'Largest number of workers visible in any one cell.' }),
      workers: Type.Array(
        Type.Object(
          {
            frame: Type.Integer({ minimum: 1, maximum: Math.max(1, cellCount), description: 'Number of the grid cell (1-based).' }),
            worker: Type.Integer({ minimum: 1, description: 'Number of the worker in that cell, left to right, from 1.' }),
            box: Type.Object(
              {
                x: Type.Number({ minimum: 0, maximum: 1, description: 'Left edge, fraction of the cell width.' }),
                y: Type.Number({ minimum: 0, maximum: 1, description: 'Top edge, fraction of the cell height.' }),
                w: Type.Number({ minimum: 0, maximum: 1, description: 'Width, fraction of the cell width.' }),
                h: Type.Number({ minimum: 0, maximum: 1, description: 'Height, fraction of the cell height.' }),
              },
              { additionalProperties: false },
            ),
            verdicts: Type.Array(
              Type.Object(
                {
                  code: StringEnum(codes),
                  verdict: StringEnum(WEAR_VERDICTS, { description: 'worn; not_worn (the body part is clearly visible without it); unknown (cannot tell).' }),
                },
                { additionalProperties: false },
              ),
              { description: 'One verdict per code asked about.' },
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'Every worker visible in every cell, each with a verdict per code.' },
      ),
    },
    { additionalProperties: false },
  );
}

/** The verdicts a model gives per worker and code. */
export const WEAR_VERDICTS = ['worn', 'not_worn', 'unknown'] as const;

/** The classification answer as TypeScript sees it. */
export type ClassificationAnswer = Static<ReturnType<typeof classificationAnswerSchema>>;
/** The composite answer as TypeScript sees it. */
export type CompositeAnswer = Static<ReturnType<typeof compositeAnswerSchema>>;

/** The plain JSON Schema to send (TypeBox's symbol keys dropped). */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** Validates a value against a schema; returns up to `max` readable problems (empty = valid). */
export function schemaProblems(schema: TSchema, value: unknown, max = 5): string[] {
  if (Value.Check(schema, value)) return [];
  const problems: string[] = [];
  for (const e of Value.Errors(schema, value)) {
    const at = e.path || '(root)';
    const s = e.schema as { [Kind]?: string; enum?: unknown[] };
    const message = s[Kind] === STRING_ENUM ? `must be one of ${JSON.stringify(s.enum)}` : e.message;
    problems.push(`${at}: ${message} (got ${JSON.stringify(e.value) ?? 'nothing'})`);
    if (problems.length >= max) break;
  }
  return problems;
}
