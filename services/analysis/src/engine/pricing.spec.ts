import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ModelPricing, PriceEntrySchema, PricingConfigError, estimateCost, parsePricingOverrides, priceFor } from './pricing.js';
import { DEFAULT_MODEL_PRICES } from './pricing.table.js';

describe('pricing table', () => {
  it('has a valid entry for every default model, including the common vision models', () => {
    for (const [model, entry] of Object.entries(DEFAULT_MODEL_PRICES)) {
      expect(Value.Check(PriceEntrySchema, entry), model).toBe(true);
    }
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'llava', 'qwen2.5-vl']) {
      expect(priceFor(model).known, model).toBe(true);
    }
  });

  it('prices an exact model name', () => {
    expect(priceFor('gpt-4o')).toEqual({
      model: 'gpt-4o',
      matchedKey: 'gpt-4o',
      inputPer1m: 2.5,
      outputPer1m: 10,
      currency: 'USD',
      known: true,
      source: 'default',
    });
  });

  it('prices dated model names by the longest prefix', () => {
    expect(priceFor('gpt-4o-2024-08-06').matchedKey).toBe('gpt-4o');
    expect(priceFor('gpt-4o-mini-2024-07-18').matchedKey).toBe('gpt-4o-mini');
    expect(priceFor('gpt-4.1-nano-2025-04-14')).toMatchObject({ matchedKey: 'gpt-4.1-nano', inputPer1m: 0.1, outputPer1m: 0.4 });
    expect(priceFor('gpt-5-mini-2025-08-07').matchedKey).toBe('gpt-5-mini');
    expect(priceFor('GPT-4.1-Mini').matchedKey).toBe('gpt-4.1-mini');
  });

  it('matches prefixes only at a word boundary', () => {
    expect(priceFor('gpt-4oxyz').known).toBe(false);
    expect(priceFor('o3-pro-2025-06-10').matchedKey).toBe('o3');
    expect(priceFor('o3x').known).toBe(false);
  });

  it('prices local models at 0 but as known', () => {
    expect(priceFor('llava:13b')).toMatchObject({ matchedKey: 'llava', inputPer1m: 0, outputPer1m: 0, known: true });
    expect(priceFor('qwen2.5vl:7b')).toMatchObject({ known: true, inputPer1m: 0 });
    expect(priceFor('Qwen/Qwen2.5-VL-7B-Instruct')).toMatchObject({ matchedKey: 'qwen2.5-vl', known: true, inputPer1m: 0 });
  });

  it('gives 0 and known: false for an unknown model', () => {
    expect(priceFor('my-azure-deployment')).toEqual({
      model: 'my-azure-deployment',
      inputPer1m: 0,
      outputPer1m: 0,
      currency: 'USD',
      known: false,
      source: 'unknown',
    });
  });
});

describe('MODEL_PRICING_JSON overrides', () => {
  it('overrides and extends the defaults', () => {
    const pricing = ModelPricing.fromJson(
      JSON.stringify({
        'gpt-4o': { input_per_1m: 2, output_per_1m: 8 },
        'my-azure-deployment': { input_per_1m: 1, output_per_1m: 3, currency: 'EUR' },
      }),
    );
    expect(pricing.priceFor('gpt-4o-2024-11-20')).toMatchObject({ inputPer1m: 2, outputPer1m: 8, source: 'override', currency: 'USD' });
    expect(pricing.priceFor('my-azure-deployment')).toMatchObject({ inputPer1m: 1, outputPer1m: 3, currency: 'EUR', known: true });
    expect(pricing.priceFor('gpt-4o-mini')).toMatchObject({ inputPer1m: 0.15, source: 'default' });
    expect(priceFor('gpt-4o', pricing).inputPer1m).toBe(2);
  });

  it('treats an empty or missing setting as no overrides', () => {
    expect(parsePricingOverrides(undefined)).toEqual({});
    expect(parsePricingOverrides('  ')).toEqual({});
  });

  it('rejects text that is not JSON with a clear error', () => {
    expect(() => ModelPricing.fromJson('{ gpt-4o: 1 }')).toThrow(PricingConfigError);
    expect(() => ModelPricing.fromJson('{ gpt-4o: 1 }')).toThrow(/MODEL_PRICING_JSON is invalid[\s\S]*not valid JSON/);
    expect(() => ModelPricing.fromJson('[1, 2]')).toThrow(/top level must be an object/);
  });

  it('lists every problem of a wrong shape', () => {
    let error: unknown;
    try {
      ModelPricing.fromJson(
        JSON.stringify({
          'gpt-4o': { input_per_1m: -1, output_per_1m: 10 },
          'gpt-5': { input_per_1m: '1.25', output_per_1m: 10 },
          llava: { input_per_1m: 0 },
          other: { input_per_1m: 1, output_per_1m: 1, currency: 'dollars', extra: true },
        }),
      );
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PricingConfigError);
    const problems = (error as PricingConfigError).problems.join('\n');
    expect(problems.split('\n')).toEqual([
      'gpt-4o.input_per_1m: Expected number to be greater or equal to 0 (got -1)',
      'gpt-5.input_per_1m: Expected number (got "1.25")',
      'llava.output_per_1m: is required',
      'other.extra: Unexpected property (got true)',
      "other.currency: Expected string to match '^[A-Z]{3}$' (got \"dollars\")",
    ]);
    expect((error as Error).message).toContain('input_per_1m');
  });
});

describe('estimateCost', () => {
  it('multiplies tokens by the price per million', () => {
    const price = priceFor('gpt-4o-mini');
    expect(estimateCost({ promptTokens: 1000, completionTokens: 500 }, price)).toBe(0.00045);
    expect(estimateCost({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, priceFor('gpt-4o'))).toBe(12.5);
  });

  it('rounds to 6 decimals', () => {
    expect(estimateCost({ promptTokens: 7, completionTokens: 0 }, { inputPer1m: 2.5, outputPer1m: 10 })).toBe(0.000018);
    expect(estimateCost({ promptTokens: 3, completionTokens: 0 }, { inputPer1m: 0.1, outputPer1m: 0 })).toBe(0);
    expect(estimateCost({ promptTokens: 12345, completionTokens: 678 }, { inputPer1m: 0.15, outputPer1m: 0.6 })).toBe(0.002259);
  });

  it('is 0 for a free or unknown model', () => {
    expect(estimateCost({ promptTokens: 5000, completionTokens: 300 }, priceFor('llava:7b'))).toBe(0);
    expect(estimateCost({ promptTokens: 5000, completionTokens: 300 }, priceFor('who-knows'))).toBe(0);
  });
});
