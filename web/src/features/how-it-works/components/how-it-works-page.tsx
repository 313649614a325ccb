import { useTranslation } from 'react-i18next';

import { ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';

const OVERVIEW = ['upload', 'sample', 'analyze', 'report'] as const;
const NODES = [1, 2, 3, 4] as const;
const SAFEGUARDS = ['retention', 'quota', 'notChecked', 'access', 'cost'] as const;

export function HowItWorksPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <>
      <section className="hero hero-compact">
        <div className="container">
          <p className="eyebrow">{t('howItWorks.eyebrow')}</p>
          <h1 className="hero-title">{t('howItWorks.title')}</h1>
          <p className="lead">{t('howItWorks.lead')}</p>
        </div>
      </section>

      <section className="section" aria-labelledby="overview-title">
        <div className="container">
          <h2 id="overview-title" className="section-title">
            {t('howItWorks.overviewTitle')}
          </h2>
          <ul className="feature-grid four">
            {OVERVIEW.map((key) => (
              <Card as="li" key={key} className="feature">
                <h3>{t(`howItWorks.overview.${key}.title`)}</h3>
                <p className="muted">{t(`howItWorks.overview.${key}.text`)}</p>
              </Card>
            ))}
          </ul>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="schema-title">
        <div className="container">
          <h2 id="schema-title" className="section-title">
            {t('howItWorks.schemaTitle')}
          </h2>
          <ol className="schema">
            {NODES.map((n) => (
              <li key={n} className="schema-node">
                <span className="schema-num" aria-hidden="true">
                  {n}
                </span>
                <div>
                  <h3>{t(`howItWorks.schema.${n}.title`)}</h3>
                  <p className="muted">{t(`howItWorks.schema.${n}.text`)}</p>
                </div>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section" aria-labelledby="safeguards-title">
        <div className="container">
          <h2 id="safeguards-title" className="section-title">
            {t('howItWorks.safeguardsTitle')}
          </h2>
          <ul className="check-list large">
            {SAFEGUARDS.map((key) => (
              <li key={key}>{t(`howItWorks.safeguards.${key}`)}</li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section cta-band">
        <div className="container cta-band-inner">
          <h2 className="section-title">{t('howItWorks.ctaTitle')}</h2>
          <ButtonLink to={user ? paths.app.dashboard.path : paths.auth.register.path} size="lg">
            {user ? t('landing.hero.ctaDashboard') : t('landing.hero.ctaRegister')}
          </ButtonLink>
        </div>
      </section>
    </>
  );
}
