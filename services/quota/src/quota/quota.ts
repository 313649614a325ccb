/** The Quota aggregate of one user: plan, limits and reservations. Events, state, evolve. */
import { PLAN_DEFINITIONS, type PlanId } from '@baret/platform';

export interface Limits {
  plan_name: string;
  daily_limit: number | null;
  monthly_limit: number | null;
  lifetime_limit: number | null;
}

const preset = (id: PlanId): Limits => ({ plan_name: id, ...PLAN_DEFINITIONS[id].limits });

/** The admin presets and a new user's limits: the plans' own definition (@baret/platform, issue 40). */
export const PRESETS = { free: preset('free'), pro: preset('pro'), enterprise: preset('enterprise') } as const satisfies Record<PlanId, Limits>;

export type QuotaLimitsChanged = {
  type: 'quota_limits_changed';
  data: { user_id: string; changes: Partial<Limits>; by: string; at: string };
};
export type QuotaReserved = { type: 'quota_reserved'; data: { user_id: string; job_id: string; at: string } };
export type QuotaReleased = { type: 'quota_released'; data: { user_id: string; job_id: string; reason: string; at: string } };
export type QuotaClosed = { type: 'quota_closed'; data: { user_id: string; at: string } };
/** A reservation brought a window to 80 % of its limit (low) or to the limit (exhausted); the owner is told. */
export type QuotaThresholdReached = {
  type: 'quota_threshold_reached';
  data: { user_id: string; job_id: string; window: 'daily' | 'monthly' | 'lifetime'; level: 'low' | 'exhausted'; used: number; limit: number; at: string };
};

export type QuotaEvent = QuotaLimitsChanged | QuotaReserved | QuotaReleased | QuotaClosed | QuotaThresholdReached;

export interface Reservation {
  at: string;
  released: boolean;
}

export interface QuotaState extends Limits {
  reservations: Record<string, Reservation>;
  closed: boolean;
}

/** Every user starts on the free plan. */
export const initialQuotaState = (): QuotaState => ({ ...PRESETS.free, reservations: {}, closed: false });

export function evolveQuota(state: QuotaState, event: QuotaEvent): QuotaState {
  switch (event.type) {
    case 'quota_limits_changed':
      return { ...state, ...event.data.changes };
    case 'quota_reserved':
      return { ...state, reservations: { ...state.reservations, [event.data.job_id]: { at: event.data.at, released: false } } };
    case 'quota_released': {
      const r = state.reservations[event.data.job_id];
      return r ? { ...state, reservations: { ...state.reservations, [event.data.job_id]: { ...r, released: true } } } : state;
    }
    case 'quota_closed':
      return { ...state, closed: true };
    case 'quota_threshold_reached':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

export interface Usage {
  daily_used: number;
  monthly_used: number;
  lifetime_used: number;
}

/** Usage counts reservations not given back: today since 00:00 UTC, this month since the 1st UTC. */
export function usageAt(state: QuotaState, now: Date): Usage {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const month = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  let daily = 0;
  let monthly = 0;
  let lifetime = 0;
  for (const r of Object.values(state.reservations)) {
    if (r.released) continue;
    const t = Date.parse(r.at);
    lifetime++;
    if (t >= month) monthly++;
    if (t >= day) daily++;
  }
  return { daily_used: daily, monthly_used: monthly, lifetime_used: lifetime };
}

/** Which limit, if any, stops one more analysis now. */
export function exceededLimit(state: QuotaState, now: Date): 'daily' | 'monthly' | 'lifetime' | null {
  const u = usageAt(state, now);
  if (state.lifetime_limit !== null && u.lifetime_used >= state.lifetime_limit) return 'lifetime';
  if (state.monthly_limit !== null && u.monthly_used >= state.monthly_limit) return 'monthly';
  if (state.daily_limit !== null && u.daily_used >= state.daily_limit) return 'daily';
  return null;
}

/** The share of a limit at which the owner is told the quota runs low. */
export const LOW_QUOTA_SHARE = 0.8;

/**
 * The threshold one more reservation crosses, if any: the most severe over the windows (exhausted
 * before low, lifetime before monthly before daily). A limit of 0 is never "reached" by a use.
 */
export function thresholdCrossed(before: Usage, after: Usage, limits: Limits): Omit<QuotaThresholdReached['data'], 'user_id' | 'job_id' | 'at'> | null {
  const windows = [
    ['lifetime', limits.lifetime_limit, before.lifetime_used, after.lifetime_used],
    ['monthly', limits.monthly_limit, before.monthly_used, after.monthly_used],
    ['daily', limits.daily_limit, before.daily_used, after.daily_used],
  ] as const;
  for (const level of ['exhausted', 'low'] as const) {
    for (const [window, limit, was, now] of windows) {
      if (limit === null || limit <= 0) continue;
      const mark = level === 'exhausted' ? limit : Math.ceil(limit * LOW_QUOTA_SHARE);
      if (was < mark && now >= mark) return { window, level, used: now, limit };
    }
  }
  return null;
}

export const quotaStream = (userId: string): string => `quota-${userId}`;
