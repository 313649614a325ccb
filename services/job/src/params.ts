import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValidationError } from '@baret/platform';
import type { AnalysisParams } from './job/job.js';

export const ParamsSchema = Type.Object({
  job_type: Type.String({ minLength: 1, maxLength: 100, default: 'auto', description: '"auto" or a task slug (manual)' }),
  sampling: Type.Union([Type.Literal('person'), Type.Literal('uniform')], { default: 'person' }),
  target_composites: Type.Integer({ minimum: 1, maximum: 20, default: 6 }),
  frames_per_composite: Type.Integer({ minimum: 2, maximum: 8, default: 4 }),
  dedupe_by_equipment: Type.Boolean({ default: true }),
});
export type Params = Static<typeof ParamsSchema>;

const MESSAGES: Record<string, string> = {
  job_type: 'job_type must be "auto" or a task from the catalogue.',
  sampling: 'sampling must be "person" or "uniform".',
  target_composites: 'target_composites must be a whole number from 1 to 20.',
  frames_per_composite: 'frames_per_composite must be a whole number from 2 to 8.',
  dedupe_by_equipment: 'dedupe_by_equipment must be true or false.',
};

/**
 * The `payload` field: a JSON string with the settings at its top level or inside `params`
 * (both forms exist in clients). Missing settings take their defaults; wrong ones are a 400.
 */
export function parsePayload(raw: string | undefined): AnalysisParams {
  let parsed: unknown = {};
  if (raw !== undefined && raw.trim() !== '') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ValidationError('The payload field must be a JSON object.');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ValidationError('The payload field must be a JSON object.');
  const obj = parsed as Record<string, unknown>;
  const nested = typeof obj.params === 'object' && obj.params !== null && !Array.isArray(obj.params) ? (obj.params as Record<string, unknown>) : {};
  const { params: _params, ...top } = obj;
  const input = Object.fromEntries(Object.entries({ ...nested, ...top }).filter(([k]) => k in ParamsSchema.properties));
  const value = Value.Default(ParamsSchema, input);
  if (!Value.Check(ParamsSchema, value)) {
    const fields = [...new Set([...Value.Errors(ParamsSchema, value)].map((e) => e.path.replace(/^\//, '')))];
    throw new ValidationError(fields.map((f) => MESSAGES[f] ?? `${f} is not valid.`).join(' '), { fields });
  }
  return value;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * `upload_id` of the payload (top level or inside `params`): the id of a finished resumable
 * (tus) upload to analyse instead of a `file` part; undefined when absent.
 */
export function uploadIdOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined; // parsePayload reports it
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const obj = parsed as Record<string, unknown>;
  const nested = typeof obj.params === 'object' && obj.params !== null ? (obj.params as Record<string, unknown>) : {};
  const id = obj.upload_id ?? nested.upload_id;
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string' || !UPLOAD_ID.test(id)) throw new ValidationError('upload_id must be the id of a finished resumable upload.');
  return id;
}

export const WORK_ORDER_MAX = 64;

export interface JobContext {
  site_id: string | null;
  crew_id: string | null;
  work_order: string | null;
}

const CONTEXT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Where and by whom a video was recorded (`site_id`, `crew_id`, top level or inside `params`) and
 * its work order (free text, at most 64 characters); each may be absent or null.
 */
export function jobContextOf(raw: string | undefined): JobContext {
  let parsed: unknown = {};
  if (raw !== undefined && raw.trim() !== '') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      return { site_id: null, crew_id: null, work_order: null }; // parsePayload reports it
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { site_id: null, crew_id: null, work_order: null };
  const obj = parsed as Record<string, unknown>;
  const nested = typeof obj.params === 'object' && obj.params !== null && !Array.isArray(obj.params) ? (obj.params as Record<string, unknown>) : {};
  const pick = (k: string) => (obj[k] ?? nested[k] ?? null) as unknown;
  const id = (k: 'site_id' | 'crew_id') => {
    const v = pick(k);
    if (v === null || v === '') return null;
    if (typeof v !== 'string' || !CONTEXT_ID.test(v)) throw new ValidationError(`${k} must be the id of a site or crew of your organisation.`);
    return v;
  };
  const wo = pick('work_order');
  if (wo !== null && typeof wo !== 'string') throw new ValidationError(`The work order must be at most ${WORK_ORDER_MAX} characters long.`);
  // Control characters and bidi overrides never reach a stored text or a CSV cell.
  // eslint-disable-next-line no-control-regex
  const workOrder = typeof wo === 'string' ? wo.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim() : '';
  if (workOrder.length > WORK_ORDER_MAX) throw new ValidationError(`The work order must be at most ${WORK_ORDER_MAX} characters long.`);
  return { site_id: id('site_id'), crew_id: id('crew_id'), work_order: workOrder || null };
}
