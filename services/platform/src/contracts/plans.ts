/**
 * The plans (issue 40), defined once: their limits, what they include and what they cost. The quota
 * service's presets, the PDF/JSON report gate of the job service, the pricing page and the admin
 * page's preset buttons all read this file. Plain data without imports, so the web app bundles it.
 */

export type PlanId = 'free' | 'pro' | 'enterprise';

export interface PlanLimits {
  daily_limit: number | null;
  monthly_limit: number | null;
  lifetime_limit: number | null;
}

export interface PlanDefinition {
  id: PlanId;
  limits: PlanLimits;
  /** Whether the plan downloads reports (JSON and PDF). */
  reports: boolean;
  /** The monthly price per currency; null: priced per agreement. */
  monthly_price: { TRY: number; USD: number } | null;
}

export const PLAN_DEFINITIONS: Readonly<Record<PlanId, PlanDefinition>> = {
  free: { id: 'free', limits: { daily_limit: null, monthly_limit: null, lifetime_limit: 2 }, reports: false, monthly_price: { TRY: 0, USD: 0 } },
  pro: { id: 'pro', limits: { daily_limit: 10, monthly_limit: 100, lifetime_limit: null }, reports: true, monthly_price: { TRY: 4500, USD: 99 } },
  enterprise: { id: 'enterprise', limits: { daily_limit: null, monthly_limit: null, lifetime_limit: null }, reports: true, monthly_price: null },
};

export const PLAN_IDS: readonly PlanId[] = ['free', 'pro', 'enterprise'];

/** The known plan a plan name stands for (case and spaces ignored), or null for a custom name. */
export function planOf(planName: string | null | undefined): PlanDefinition | null {
  const key = (planName ?? '').trim().toLowerCase();
  return (PLAN_IDS as readonly string[]).includes(key) ? PLAN_DEFINITIONS[key as PlanId] : null;
}

/** Whether a plan downloads reports (JSON and PDF): pro and enterprise. */
export function planHasReports(planName: string | null | undefined): boolean {
  return planOf(planName)?.reports ?? false;
}
