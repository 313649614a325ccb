import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DEFAULT_MODEL_PRICES } from './pricing.table.js';
import type { TokenUsage } from './types.js';

/** One price as `MODEL_PRICING_JSON` writes it: USD (or `currency`) per 1 million tokens. */
export const PriceEntrySchema = Type.Object(
  {
    input_per_1m: Type.Number({ minimum: 0 }),
    output_per_1m: Type.Number({ minimum: 0 }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  },
  { additionalProperties: false },
);

/** `MODEL_PRICING_JSON`: `{ "model": { "input_per_1m": n, "output_per_1m": n, "currency"?: "USD" } }`. */
export const PricingOverridesSchema = Type.Record(Type.String({ minLength: 1 }), PriceEntrySchema);

/** One price entry. */
export type PriceEntry = Static<typeof PriceEntrySchema>;
/** The parsed `MODEL_PRICING_JSON`. */
export type PricingOverrides = Static<typeof PricingOverridesSchema>;

/** What a model costs, as `priceFor` resolves it. */
export interface ModelPrice {
  /** The model name asked about. */
  model: string;
  /** The table key that matched (exact or longest prefix); absent when unknown. */
  matchedKey?: string;
  /** Price per 1 million prompt (input) tokens. */
  inputPer1m: number;
  /** Price per 1 million completion (output) tokens. */
  outputPer1m: number;
  /** ISO 4217 code; USD unless an override says otherwise. */
  currency: string;
  /** False when no entry matched: the prices are then 0 and the cost is not real. */
  known: boolean;
  /** Where the price came from. */
  source: 'override' | 'default' | 'unknown';
}

/** `MODEL_PRICING_JSON` is not valid JSON or not the expected shape. Lists every problem. */
export class PricingConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `MODEL_PRICING_JSON is invalid; expected { "<model>": { "input_per_1m": number >= 0, "output_per_1m": number >= 0, "currency"?: "USD" } }:\n${problems
        .map((p) => `  - ${p}`)
        .join('\n')}`,
    );
    this.name = 'PricingConfigError';
  }
}

/**
 * Parses and validates `MODEL_PRICING_JSON`. Empty or undefined gives no overrides.
 * @throws PricingConfigError listing everything that is wrong.
 */
export function parsePricingOverrides(json: string | undefined): PricingOverrides {
  if (json === undefined || json.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new PricingConfigError([`not valid JSON: ${(err as Error).message}`]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PricingConfigError(['the top level must be an object keyed by model name']);
  }
  const byPath = new Map<string, string>();
  for (const e of Value.Errors(PricingOverridesSchema, parsed)) {
    const path = e.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
    if (byPath.has(path)) continue; // one problem per field: the first is the telling one
    const message = e.value === undefined ? 'is required' : e.message;
    const got = e.value === undefined || typeof e.value === 'object' ? '' : ` (got ${JSON.stringify(e.value)})`;
    byPath.set(path, `${path}: ${message}${got}`);
  }
  const problems = [...byPath.values()];
  if (problems.length > 0) throw new PricingConfigError(problems);
  return parsed as PricingOverrides;
}

interface TableRow {
  key: string;
  lower: string;
  entry: PriceEntry;
  source: 'override' | 'default';
}

/** A model name made comparable: lower case, without an organisation prefix (`Qwen/Qwen2.5-VL-7B` → `qwen2.5-vl-7b`). */
function normalise(model: string): string {
  const lower = model.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash >= 0 ? lower.slice(slash + 1) : lower;
}

/** A prefix must end at a word boundary: `gpt-4o` matches `gpt-4o-2024-08-06`, `o3` does not match `o3x`. */
function prefixMatches(name: string, prefix: string): boolean {
  if (!name.startsWith(prefix)) return false;
  if (name.length === prefix.length) return true;
  const next = name.charAt(prefix.length);
  return !/[a-z0-9]/.test(next);
}

/** The price table: the reviewed defaults, overridden and extended by `MODEL_PRICING_JSON`. */
export class ModelPricing {
  private readonly rows: TableRow[];

  /** @param overrides entries that replace or extend the default table. */
  constructor(overrides: PricingOverrides = {}, defaults: Readonly<Record<string, PriceEntry>> = DEFAULT_MODEL_PRICES) {
    const rows = new Map<string, TableRow>();
    for (const [key, entry] of Object.entries(defaults)) rows.set(normalise(key), { key, lower: normalise(key), entry, source: 'default' });
    for (const [key, entry] of Object.entries(overrides)) rows.set(normalise(key), { key, lower: normalise(key), entry, source: 'override' });
    this.rows = [...rows.values()];
  }

  /**
   * Builds the table from the raw `MODEL_PRICING_JSON` setting.
   * @throws PricingConfigError when the setting is invalid.
   */
  static fromJson(json: string | undefined): ModelPricing {
    return new ModelPricing(parsePricingOverrides(json));
  }

  /**
   * The price of a model: exact match (case-insensitive, organisation prefix ignored) first,
   * then the longest key that is a prefix of the name at a word boundary. Unknown → 0, `known: false`.
   */
  priceFor(model: string): ModelPrice {
    const name = normalise(model);
    let best: TableRow | undefined;
    for (const row of this.rows) {
      if (row.lower === name) {
        best = row;
        break;
      }
      if (prefixMatches(name, row.lower) && (!best || row.lower.length > best.lower.length)) best = row;
    }
    if (!best) return { model, inputPer1m: 0, outputPer1m: 0, currency: 'USD', known: false, source: 'unknown' };
    return {
      model,
      matchedKey: best.key,
      inputPer1m: best.entry.input_per_1m,
      outputPer1m: best.entry.output_per_1m,
      currency: best.entry.currency ?? 'USD',
      known: true,
      source: best.source,
    };
  }
}

const defaultPricing = new ModelPricing();

/** The price of a model in the given table (the default table when omitted). See `ModelPricing.priceFor`. */
export function priceFor(model: string, pricing: ModelPricing = defaultPricing): ModelPrice {
  return pricing.priceFor(model);
}

/** Cost of the tokens used at the given price, rounded to 6 decimals. */
export function estimateCost(usage: TokenUsage, price: Pick<ModelPrice, 'inputPer1m' | 'outputPer1m'>): number {
  // tokens × (price per 1M) is already the cost in millionths: round there, divide once.
  const micros = usage.promptTokens * price.inputPer1m + usage.completionTokens * price.outputPer1m;
  return Math.round(micros) / 1_000_000;
}
