import { ForbiddenError, IllegalStateError, ValidationError, type Decider } from '@baret/platform';
import { evolveQuota, exceededLimit, initialQuotaState, thresholdCrossed, usageAt, type Limits, type QuotaEvent, type QuotaState } from './quota.js';

/** The spec's quota message; callers of the quota client see only `{ ok: false, reason }`. */
const QUOTA_EXCEEDED_MESSAGE = 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.';

export class QuotaExceededError extends ForbiddenError {
  constructor(readonly limit: 'daily' | 'monthly' | 'lifetime') {
    super(QUOTA_EXCEEDED_MESSAGE, { limit });
  }
}

export type ReserveUnit = { type: 'reserve_unit'; data: { user_id: string; job_id: string; now: Date } };
export type ReleaseUnit = { type: 'release_unit'; data: { user_id: string; job_id: string; reason: string; now: Date } };
export type ChangeLimits = { type: 'change_limits'; data: { user_id: string; changes: Partial<Limits>; by: string; now: Date } };
export type CloseQuota = { type: 'close_quota'; data: { user_id: string; now: Date } };
export type QuotaCommand = ReserveUnit | ReleaseUnit | ChangeLimits | CloseQuota;

const LIMIT_FIELDS = ['daily_limit', 'monthly_limit', 'lifetime_limit'] as const;

export function decideQuota(command: QuotaCommand, state: QuotaState): QuotaEvent[] {
  switch (command.type) {
    case 'reserve_unit': {
      const { user_id, job_id, now } = command.data;
      if (state.closed) throw new ForbiddenError('This account no longer exists.');
      const existing = state.reservations[job_id];
      if (existing && !existing.released) return []; // the same job twice consumes once
      if (existing) throw new IllegalStateError('This job already gave its quota unit back.');
      const limit = exceededLimit(state, now);
      if (limit) throw new QuotaExceededError(limit);
      const reserved: QuotaEvent = { type: 'quota_reserved', data: { user_id, job_id, at: now.toISOString() } };
      const crossed = thresholdCrossed(usageAt(state, now), usageAt(evolveQuota(state, reserved), now), state);
      return crossed ? [reserved, { type: 'quota_threshold_reached', data: { user_id, job_id, ...crossed, at: now.toISOString() } }] : [reserved];
    }
    case 'release_unit': {
      const { user_id, job_id, reason, now } = command.data;
      const existing = state.reservations[job_id];
      if (!existing || existing.released) return [];
      return [{ type: 'quota_released', data: { user_id, job_id, reason, at: now.toISOString() } }];
    }
    case 'change_limits': {
      const { user_id, changes, by, now } = command.data;
      for (const field of LIMIT_FIELDS) {
        const v = changes[field];
        if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) {
          throw new ValidationError('Please enter whole numbers greater than or equal to 0.');
        }
      }
      const effective = Object.fromEntries(
        Object.entries(changes).filter(([k, v]) => v !== undefined && state[k as keyof Limits] !== v),
      ) as Partial<Limits>;
      if (Object.keys(effective).length === 0) return [];
      return [{ type: 'quota_limits_changed', data: { user_id, changes: effective, by, at: now.toISOString() } }];
    }
    case 'close_quota':
      return state.closed ? [] : [{ type: 'quota_closed', data: { user_id: command.data.user_id, at: command.data.now.toISOString() } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const quotaDecider: Decider<QuotaState, QuotaCommand, QuotaEvent> = {
  initialState: initialQuotaState,
  evolve: evolveQuota,
  decide: decideQuota,
};
