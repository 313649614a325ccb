/** Plan content (spec sections 3 and 9); texts come from the translation files under pricing.plans.<id>, limits and prices from the plans' definition (lib/plans). */
import type { PlanId } from '@/lib/plans';

export interface PlanCta {
  href: string;
  /** translation key */
  label: string;
  external: boolean;
}

export interface Plan {
  id: PlanId;
  highlight: boolean;
  cta: PlanCta | null;
}

export const PLANS: readonly Plan[] = [
  { id: 'free', highlight: false, cta: { href: '/register', label: 'pricing.plans.free.cta', external: false } },
  { id: 'pro', highlight: true, cta: { href: '#upgrade', label: 'pricing.plans.pro.cta', external: false } },
  { id: 'enterprise', highlight: false, cta: { href: '/contact', label: 'pricing.plans.enterprise.cta', external: false } },
];

export const FAQ_COUNT = 5;
