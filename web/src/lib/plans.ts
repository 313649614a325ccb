/**
 * The plans as the server defines them (services/platform/src/contracts/plans.ts, issue 40): the
 * pricing page, the admin presets and the download gate read the same limits and prices as the
 * quota service and the PDF gate. Plain data, bundled with the pages that import it.
 */
import type { TFunction } from 'i18next';

import type { Quota } from '@/types/api';
import { PLAN_DEFINITIONS, PLAN_IDS, planHasReports, planOf, type PlanDefinition, type PlanId, type PlanLimits } from '../../../services/platform/src/contracts/plans';

export { PLAN_DEFINITIONS, PLAN_IDS, planHasReports, planOf, type PlanDefinition, type PlanId, type PlanLimits };

/** A plan's name in the current language ("free" → "Ücretsiz"); a custom plan keeps its own name. */
export function planLabel(t: TFunction, planName: string | null | undefined): string {
  const id = (planName ?? '').trim().toLowerCase() || 'free';
  return (PLAN_IDS as readonly string[]).includes(id) ? t(`plans.${id}`) : (planName ?? '').trim();
}

/** "10 analyses per day, 100 per month", "2 analyses for life", "limits set to your operation": a plan's limits in words. */
export function limitsText(t: TFunction, limits: PlanLimits): string {
  const { daily_limit: daily, monthly_limit: monthly, lifetime_limit: lifetime } = limits;
  if (lifetime !== null) return t('plans.limits.lifetime', { count: lifetime });
  if (daily !== null && monthly !== null) return t('plans.limits.dailyMonthly', { daily, monthly });
  if (daily !== null) return t('plans.limits.daily', { count: daily });
  if (monthly !== null) return t('plans.limits.monthly', { count: monthly });
  return t('plans.limits.custom');
}

/** A plan's monthly price in the reader's currency (TRY in Turkish, USD in English), or null when priced per agreement. */
export function priceText(plan: PlanDefinition, lang: string): string | null {
  if (!plan.monthly_price) return null;
  const currency = lang.startsWith('tr') ? 'TRY' : 'USD';
  const amount = new Intl.NumberFormat(lang.startsWith('tr') ? 'tr-TR' : 'en-GB', { maximumFractionDigits: 0 }).format(plan.monthly_price[currency]);
  return `${amount} ${currency}`;
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
