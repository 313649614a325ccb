import { PLAN_DEFINITIONS, type PlanId } from '@/lib/plans';
import type { Quota, QuotaUpdate } from '@/types/api';

/** What an admin is typing for one user's plan and limits; limits as text, blank = unlimited. */
export interface QuotaDraft {
  plan_name: string;
  daily_limit: string;
  monthly_limit: string;
  lifetime_limit: string;
}

export type LimitField = 'daily_limit' | 'monthly_limit' | 'lifetime_limit';
export const LIMIT_FIELDS: readonly LimitField[] = ['daily_limit', 'monthly_limit', 'lifetime_limit'];

const limitText = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));

export type PresetName = 'free' | 'pro';

/** Admin presets: the plans' own limits (lib/plans), as the editor's draft. */
export const PRESETS: Readonly<Record<PresetName, QuotaDraft>> = {
  free: presetDraft('free'),
  pro: presetDraft('pro'),
};

function presetDraft(id: PlanId): QuotaDraft {
  const { limits } = PLAN_DEFINITIONS[id];
  return { plan_name: id, daily_limit: limitText(limits.daily_limit), monthly_limit: limitText(limits.monthly_limit), lifetime_limit: limitText(limits.lifetime_limit) };
}

export function draftFromQuota(quota: Quota): QuotaDraft {
  return {
    plan_name: quota.plan_name ?? '',
    daily_limit: limitText(quota.daily_limit),
    monthly_limit: limitText(quota.monthly_limit),
    lifetime_limit: limitText(quota.lifetime_limit),
  };
}

/** Blank or a whole number ≥ 0. */
export function isValidLimit(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || /^\d+$/.test(trimmed);
}

export function parseLimit(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : Number.parseInt(trimmed, 10);
}

/** The longest plan name the server keeps (quota's schema). */
export const PLAN_NAME_MAX = 50;

/** Blank (the free plan) or at most {@link PLAN_NAME_MAX} characters. */
export function isValidPlanName(text: string): boolean {
  return text.trim().length <= PLAN_NAME_MAX;
}

export type DraftField = LimitField | 'plan_name';

export function invalidFields(draft: QuotaDraft): DraftField[] {
  return [...(isValidPlanName(draft.plan_name) ? [] : (['plan_name'] as const)), ...LIMIT_FIELDS.filter((field) => !isValidLimit(draft[field]))];
}

/** Only the fields that differ from the server; an empty plan name becomes null. */
export function changedFields(server: Quota, draft: QuotaDraft): QuotaUpdate {
  const changes: QuotaUpdate = {};
  const plan = draft.plan_name.trim();
  if (plan !== (server.plan_name ?? '')) changes.plan_name = plan === '' ? null : plan;
  for (const field of LIMIT_FIELDS) {
    if (!isValidLimit(draft[field])) continue;
    const next = parseLimit(draft[field]);
    const current = server[field] ?? null;
    if (next !== current) changes[field] = next;
  }
  return changes;
}

export type SaveDecision = { kind: 'unchanged' } | { kind: 'invalid'; fields: DraftField[] } | { kind: 'save'; changes: QuotaUpdate };

/** Save is sent only when something changed and every value is valid (spec section 4). */
export function decideSave(server: Quota, draft: QuotaDraft): SaveDecision {
  const invalid = invalidFields(draft);
  if (invalid.length > 0) return { kind: 'invalid', fields: invalid };
  const changes = changedFields(server, draft);
  return Object.keys(changes).length === 0 ? { kind: 'unchanged' } : { kind: 'save', changes };
}

export function isDirty(server: Quota, draft: QuotaDraft): boolean {
  const base = draftFromQuota(server);
  return (Object.keys(base) as (keyof QuotaDraft)[]).some((key) => base[key].trim() !== draft[key].trim());
}
