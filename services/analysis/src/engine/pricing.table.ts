/**
 * Default price table of vision models, in USD per 1 million tokens (standard tier, no batch or
 * cached-input discount).
 *
 * Source: OpenAI API pricing page, https://openai.com/api/pricing/ (and
 * https://platform.openai.com/docs/pricing), as known on 2025-08-15.
 * Prices change: REVIEW THIS TABLE before relying on `estimated_cost`, at least every quarter and
 * whenever a model is added. A deployment can override or extend it without a release through
 * `MODEL_PRICING_JSON` (see `pricing.ts`).
 *
 * Self-hosted models (vLLM, Ollama) cost nothing per token here: their cost is the hardware, which
 * a per-token price does not describe. Keys are matched case-insensitively by longest prefix, so
 * `gpt-4o-2024-08-06` is priced as `gpt-4o` and `llava:13b` as `llava`.
 */
export interface DefaultPriceEntry {
  input_per_1m: number;
  output_per_1m: number;
  currency: 'USD';
}

const usd = (input: number, output: number): DefaultPriceEntry => ({
  input_per_1m: input,
  output_per_1m: output,
  currency: 'USD',
});

/** Reviewed 2025-08-15. See the module comment for the source. */
export const PRICES_REVIEWED_ON = '2025-08-15';

/** The default table: model name (or name prefix) → price. */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, DefaultPriceEntry>> = Object.freeze({
  // OpenAI hosted models (also the usual Azure OpenAI model names).
  'gpt-4o': usd(2.5, 10),
  'gpt-4o-mini': usd(0.15, 0.6),
  'gpt-4.1': usd(2, 8),
  'gpt-4.1-mini': usd(0.4, 1.6),
  'gpt-4.1-nano': usd(0.1, 0.4),
  'gpt-5': usd(1.25, 10),
  'gpt-5-mini': usd(0.25, 2),
  'gpt-5-nano': usd(0.05, 0.4),
  o3: usd(2, 8),
  'o4-mini': usd(1.1, 4.4),
  // Self-hosted vision models (Ollama and Hugging Face / vLLM names): no per-token price.
  llava: usd(0, 0),
  'llava-llama3': usd(0, 0),
  bakllava: usd(0, 0),
  'llama3.2-vision': usd(0, 0),
  'llama-3.2': usd(0, 0),
  'qwen2.5-vl': usd(0, 0),
  'qwen2.5vl': usd(0, 0),
  'qwen2-vl': usd(0, 0),
  'qwen3-vl': usd(0, 0),
  gemma3: usd(0, 0),
  'gemma-3': usd(0, 0),
  'minicpm-v': usd(0, 0),
  moondream: usd(0, 0),
  'internvl': usd(0, 0),
});
