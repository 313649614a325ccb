import { type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { Badge } from '@/components/ui/badge';
import { ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { FAQ_COUNT, PLANS, type Plan } from '@/features/pricing/components/plans';
import { useAuth } from '@/lib/auth';
import { PLAN_DEFINITIONS, limitsText, priceText } from '@/lib/plans';

function useStringList(key: string): string[] {
  const { t } = useTranslation();
  const value: unknown = t(key, { returnObjects: true });
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function PlanCard({ plan }: { plan: Plan }) {
  const { t, i18n } = useTranslation();
  const definition = PLAN_DEFINITIONS[plan.id];
  const { user } = useAuth();
  const features = useStringList(`pricing.plans.${plan.id}.features`);
  const base = `pricing.plans.${plan.id}`;
  let cta = plan.cta;
  if (cta && plan.id === 'free' && user) cta = { ...cta, href: paths.app.dashboard.path, label: 'pricing.plans.free.ctaLoggedIn' };
  const variant = plan.highlight ? 'primary' : 'secondary';
  return (
    <Card as="li" className={plan.highlight ? 'plan plan-highlight' : 'plan'} aria-labelledby={`plan-${plan.id}`}>
      <div className="plan-head">
        <h2 id={`plan-${plan.id}`} className="plan-name">
          {t(`${base}.name`)}
        </h2>
        <Badge tone={plan.highlight ? 'accent' : 'neutral'}>{t(`${base}.badge`)}</Badge>
      </div>
      <p className="muted">{t(`${base}.description`)}</p>
      <p className="plan-price">
        <span className="price">{priceText(definition, i18n.language) ?? t(`${base}.price`)}</span>
        <span className="price-period">{t(`${base}.period`)}</span>
      </p>
      <p className="muted small">{t(`${base}.priceInfo`)}</p>
      <ul className="check-list">
        <li>{limitsText(t, definition.limits)}</li>
        {features.map((feature) => (
          <li key={feature}>{feature}</li>
        ))}
      </ul>
      {cta ? (
        cta.external ? (
          <a className={`btn btn-${variant} btn-md btn-block`} href={cta.href} target="_blank" rel="noopener noreferrer">
            {t(cta.label)}
          </a>
        ) : cta.href.startsWith('#') ? (
          <a className={`btn btn-${variant} btn-md btn-block`} href={cta.href}>
            {t(cta.label)}
          </a>
        ) : (
          <ButtonLink to={cta.href} variant={variant} className="btn-block">
            {t(cta.label)}
          </ButtonLink>
        )
      ) : null}
    </Card>
  );
}

/** `upgradeSlot` is where the route puts the upgrade request form for logged-in, non-pro users. */
export function PricingPage({ upgradeSlot }: { upgradeSlot?: ReactNode }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const isPro = (user?.quota?.plan_name ?? '').trim().toLowerCase() === 'pro';
  return (
    <div className="container section">
      <header className="section-head center">
        <p className="eyebrow">{t('pricing.eyebrow')}</p>
        <h1 className="section-title">{t('pricing.title')}</h1>
        <p className="lead">{t('pricing.lead')}</p>
      </header>
      <ul className="plan-grid">
        {PLANS.map((plan) => (
          <PlanCard key={plan.id} plan={plan} />
        ))}
      </ul>

      <Card id="upgrade" className="upgrade-section" title={t('upgrade.title')} titleId="upgrade-title" lead={t('upgrade.lead')} leadWithTitle>
        {!user ? (
          <div className="login-prompt">
            <p>{t('upgrade.loginPrompt')}</p>
            <ButtonLink to={paths.auth.login.getHref('/pricing#upgrade')}>{t('nav.login')}</ButtonLink>
          </div>
        ) : isPro ? (
          <p className="ok-text">{t('upgrade.alreadyPro')}</p>
        ) : (
          upgradeSlot
        )}
      </Card>

      <Card
        className="contact-block"
        title={t('pricing.contact.title')}
        titleId="pricing-contact"
        lead={
          <>
            {t('pricing.contact.text')} <a href="mailto:satis@baret.app">satis@baret.app</a>
          </>
        }
        leadWithTitle
      >
        <ButtonLink to={paths.contact.path} variant="secondary">
          {t('pricing.contact.button')}
        </ButtonLink>
      </Card>

      <section className="faq" aria-labelledby="faq-title">
        <h2 id="faq-title" className="section-title">
          {t('pricing.faq.title')}
        </h2>
        <div className="faq-list">
          {Array.from({ length: FAQ_COUNT }, (_, i) => (
            <details key={i} className="faq-item">
              <summary>{t(`pricing.faq.items.${i}.q`)}</summary>
              <p>{t(`pricing.faq.items.${i}.a`)}</p>
            </details>
          ))}
        </div>
        <p className="muted small">
          {t('pricing.faq.more')} <Link to={paths.contact.path}>{t('nav.contact')}</Link>
        </p>
      </section>
    </div>
  );
}
