import { describe, expect, it } from 'vitest';
import { IllegalStateError, ValidationError } from '@baret/platform';
import { deciderSpec } from '@baret/platform/testing';
import { QuotaExceededError, quotaDecider } from '../src/quota/businessLogic.js';
import { initialQuotaState, usageAt, evolveQuota, type QuotaEvent } from '../src/quota/quota.js';

const at = (iso: string) => new Date(iso);
const reserved = (job: string, iso: string): QuotaEvent => ({ type: 'quota_reserved', data: { user_id: 'u1', job_id: job, at: iso } });
const reached = (job: string, iso: string, window: 'daily' | 'monthly' | 'lifetime', level: 'low' | 'exhausted', used: number, limit: number): QuotaEvent => ({
  type: 'quota_threshold_reached',
  data: { user_id: 'u1', job_id: job, window, level, used, limit, at: iso },
});
const reserve = (job: string, iso: string) => ({ type: 'reserve_unit', data: { user_id: 'u1', job_id: job, now: at(iso) } }) as const;

describe('Quota decider', () => {
  const spec = deciderSpec(quotaDecider);

  it('starts every user on the free plan: 2 analyses for life', () => {
    spec.given([]).when(reserve('j1', '2026-01-01T00:00:00Z')).then([reserved('j1', '2026-01-01T00:00:00.000Z')]);
    spec
      .given([reserved('j1', '2026-01-01T00:00:00Z'), reserved('j2', '2026-01-02T00:00:00Z')])
      .when(reserve('j3', '2027-06-01T00:00:00Z'))
      .thenThrows(QuotaExceededError, /Kullanım limitiniz doldu/);
  });

  it('tells when a reservation brings a window to 80 % of its limit, then to the limit, once each', () => {
    const pro: QuotaEvent = {
      type: 'quota_limits_changed',
      data: { user_id: 'u1', changes: { plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null }, by: 'admin', at: '2026-01-01T00:00:00Z' },
    };
    const seven = [pro, ...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((j, i) => reserved(j, `2026-01-05T0${i}:00:00Z`))];
    spec.given(seven).when(reserve('h', '2026-01-05T09:00:00Z')).then([reserved('h', '2026-01-05T09:00:00.000Z'), reached('h', '2026-01-05T09:00:00.000Z', 'daily', 'low', 8, 10)]);
    const eight = [...seven, reserved('h', '2026-01-05T09:00:00Z')];
    spec.given(eight).when(reserve('i', '2026-01-05T10:00:00Z')).then([reserved('i', '2026-01-05T10:00:00.000Z')]);
    const nine = [...eight, reserved('i', '2026-01-05T10:00:00Z')];
    spec.given(nine).when(reserve('j', '2026-01-05T11:00:00Z')).then([reserved('j', '2026-01-05T11:00:00.000Z'), reached('j', '2026-01-05T11:00:00.000Z', 'daily', 'exhausted', 10, 10)]);
  });

  it('reserves once per job id', () => spec.given([reserved('j1', '2026-01-01T00:00:00Z')]).when(reserve('j1', '2026-01-01T01:00:00Z')).then([]));

  it('gives a unit back once, and never re-reserves a released job', () => {
    const released: QuotaEvent = { type: 'quota_released', data: { user_id: 'u1', job_id: 'j1', reason: 'failed', at: '2026-01-01T00:10:00.000Z' } };
    spec
      .given([reserved('j1', '2026-01-01T00:00:00Z')])
      .when({ type: 'release_unit', data: { user_id: 'u1', job_id: 'j1', reason: 'failed', now: at('2026-01-01T00:10:00Z') } })
      .then([released]);
    spec
      .given([reserved('j1', '2026-01-01T00:00:00Z'), released])
      .when({ type: 'release_unit', data: { user_id: 'u1', job_id: 'j1', reason: 'failed', now: at('2026-01-01T00:10:00Z') } })
      .then([]);
    spec.given([reserved('j1', '2026-01-01T00:00:00Z'), released]).when(reserve('j1', '2026-01-01T00:20:00Z')).thenThrows(IllegalStateError);
    spec.given([reserved('j1', '2026-01-01T00:00:00Z'), released, reserved('j2', '2026-01-01T00:30:00Z')]).when(reserve('j3', '2026-01-01T00:40:00Z')).then([
      reserved('j3', '2026-01-01T00:40:00.000Z'),
      reached('j3', '2026-01-01T00:40:00.000Z', 'lifetime', 'exhausted', 2, 2),
    ]);
  });

  it('resets daily usage at 00:00 UTC and monthly usage on the 1st, UTC', () => {
    const limits: QuotaEvent = {
      type: 'quota_limits_changed',
      data: { user_id: 'u1', changes: { plan_name: 'pro', daily_limit: 2, monthly_limit: 3, lifetime_limit: null }, by: 'admin', at: '2026-01-30T00:00:00Z' },
    };
    const day1 = [limits, reserved('a', '2026-01-30T08:00:00Z'), reserved('b', '2026-01-30T23:59:59Z')];
    spec.given(day1).when(reserve('c', '2026-01-30T23:59:59.999Z')).thenThrows(QuotaExceededError);
    spec.given(day1).when(reserve('c', '2026-01-31T00:00:00Z')).then([reserved('c', '2026-01-31T00:00:00.000Z'), reached('c', '2026-01-31T00:00:00.000Z', 'monthly', 'exhausted', 3, 3)]);
    const month = [...day1, reserved('c', '2026-01-31T00:00:00Z')];
    spec.given(month).when(reserve('d', '2026-01-31T12:00:00Z')).thenThrows(QuotaExceededError);
    spec.given(month).when(reserve('d', '2026-02-01T00:00:00Z')).then([reserved('d', '2026-02-01T00:00:00.000Z')]);
    const state = month.reduce(evolveQuota, initialQuotaState());
    expect(usageAt(state, at('2026-01-31T12:00:00Z'))).toEqual({ daily_used: 1, monthly_used: 3, lifetime_used: 3 });
    expect(usageAt(state, at('2026-02-01T00:00:00Z'))).toEqual({ daily_used: 0, monthly_used: 0, lifetime_used: 3 });
  });

  it('changes only the fields sent, refuses negative or fractional limits', () => {
    spec
      .given([])
      .when({ type: 'change_limits', data: { user_id: 'u1', changes: { daily_limit: 5, lifetime_limit: 2 }, by: 'admin', now: at('2026-01-01T00:00:00Z') } })
      .then([{ type: 'quota_limits_changed', data: { user_id: 'u1', changes: { daily_limit: 5 }, by: 'admin', at: '2026-01-01T00:00:00.000Z' } }]);
    spec
      .given([])
      .when({ type: 'change_limits', data: { user_id: 'u1', changes: { daily_limit: -1 }, by: 'admin', now: at('2026-01-01T00:00:00Z') } })
      .thenThrows(ValidationError, /whole numbers/);
    spec
      .given([])
      .when({ type: 'change_limits', data: { user_id: 'u1', changes: { monthly_limit: 1.5 }, by: 'admin', now: at('2026-01-01T00:00:00Z') } })
      .thenThrows(ValidationError);
  });

  it('null means unlimited', () =>
    spec
      .given([
        { type: 'quota_limits_changed', data: { user_id: 'u1', changes: { lifetime_limit: null }, by: 'admin', at: '2026-01-01T00:00:00Z' } },
        reserved('a', '2026-01-01T01:00:00Z'),
        reserved('b', '2026-01-01T02:00:00Z'),
      ])
      .when(reserve('c', '2026-01-01T03:00:00Z'))
      .then([reserved('c', '2026-01-01T03:00:00.000Z')]));

  it('a zero limit stops every analysis', () =>
    spec
      .given([{ type: 'quota_limits_changed', data: { user_id: 'u1', changes: { daily_limit: 0 }, by: 'admin', at: '2026-01-01T00:00:00Z' } }])
      .when(reserve('a', '2026-01-01T03:00:00Z'))
      .thenThrows(QuotaExceededError));
});
