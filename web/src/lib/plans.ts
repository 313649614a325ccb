import type { TFunction } from 'i18next';

import type { Quota } from '@/types/api';

export const PLAN_IDS = ['free', 'pro', 'enterprise'] as const;

/** A plan's name in the current language ("free" → "Ücretsiz"); a custom plan keeps its own name. */
export function planLabel(t: TFunction, planName: string | null | undefined): string {
  const id = (planName ?? '').trim().toLowerCase() || 'free';
  return (PLAN_IDS as readonly string[]).includes(id) ? t(`plans.${id}`) : (planName ?? '').trim();
}

/** How many analyses the quota still allows (the tightest of its daily, monthly and lifetime limits), or null when unlimited. */
export function analysesLeft(quota: Quota): number | null {
  const left = [
    [quota.daily_limit, quota.daily_used],
    [quota.monthly_limit, quota.monthly_used],
    [quota.lifetime_limit, quota.lifetime_used],
  ].flatMap(([limit, used]) => (limit === null || limit === undefined ? [] : [Math.max(0, limit - (used ?? 0))]));
  return left.length === 0 ? null : Math.min(...left);
}
