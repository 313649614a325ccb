import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { Badge } from '@/components/ui/badge';
import { ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useDemoVideo } from '@/features/landing/api/check-demo-video';
import { ScenarioCarousel } from '@/features/landing/components/carousel';
import { DemoVideoModal } from '@/features/landing/components/demo-video-modal';
import { useAuth } from '@/lib/auth';
import { formatCost } from '@/lib/format';

const FEATURE_ICONS: Record<string, string> = {
  upload: 'M12 16V4m0 0l-5 5m5-5l5 5M4 16v3a1 1 0 001 1h14a1 1 0 001-1v-3',
  catalog: 'M4 5h16M4 12h16M4 19h10',
  evidence: 'M4 6h16v12H4zM8 10l3 3 5-5',
  timeline: 'M12 7v5l3 3M12 21a9 9 0 110-18 9 9 0 010 18z',
  api: 'M8 9l-4 3 4 3M16 9l4 3-4 3M13 6l-2 12',
  privacy: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z',
};
const FEATURES = ['upload', 'catalog', 'evidence', 'timeline', 'api', 'privacy'] as const;

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function LandingPage() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const demo = useDemoVideo();
  const [videoOpen, setVideoOpen] = useState(false);

  return (
    <>
      <section className="hero">
        <div className="container hero-grid">
          <div className="hero-copy">
            <p className="eyebrow">{t('landing.hero.eyebrow')}</p>
            <h1 className="hero-title">{t('landing.hero.title')}</h1>
            <p className="lead">{t('landing.hero.description')}</p>
            {!user ? (
              <p>
                <Badge tone="accent">{t('landing.hero.demoQuota')}</Badge>
              </p>
            ) : null}
            <div className="cta-row">
              <ButtonLink to={user ? paths.app.dashboard.path : paths.auth.register.path} size="lg">
                {user ? t('landing.hero.ctaDashboard') : t('landing.hero.ctaRegister')}
              </ButtonLink>
              {!user ? (
                <ButtonLink to={paths.auth.login.path} size="lg" variant="secondary">
                  {t('landing.hero.ctaLogin')}
                </ButtonLink>
              ) : null}
            </div>
            <ul className="chip-row" aria-label={t('landing.chips.label')}>
              <li>
                {/* No demo video on this server: a chip that leads somewhere instead of one that is always disabled (issue 40). */}
                {!demo.url && !demo.checking ? (
                  <Link className="chip chip-action" to={paths.howItWorks.getHref()}>
                    {t('landing.chips.howItWorks')}
                  </Link>
                ) : (
                  <button type="button" className="chip chip-action" disabled={!demo.url} onClick={() => setVideoOpen(true)}>
                    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
                      <path d="M8 5l11 7-11 7z" fill="currentColor" />
                    </svg>
                    {t('landing.chips.demo')}
                  </button>
                )}
              </li>
              <li className="chip">{t('landing.chips.async')}</li>
              <li className="chip">{t('landing.chips.bilingual')}</li>
              <li className="chip">{t('landing.chips.api')}</li>
            </ul>
          </div>
          <div className="hero-visual">
            <ScenarioCarousel />
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="features-title">
        <div className="container">
          <header className="section-head">
            <p className="eyebrow">{t('landing.features.eyebrow')}</p>
            <h2 id="features-title" className="section-title">
              {t('landing.features.title')}
            </h2>
          </header>
          <ul className="feature-grid">
            {FEATURES.map((key) => (
              <Card as="li" key={key} className="feature">
                <span className="feature-icon">
                  <Icon d={FEATURE_ICONS[key] ?? ''} />
                </span>
                <h3>{t(`landing.features.items.${key}.title`)}</h3>
                <p className="muted">{t(`landing.features.items.${key}.text`)}</p>
              </Card>
            ))}
          </ul>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="results-title">
        <div className="container results-grid">
          <div>
            <p className="eyebrow">{t('landing.results.eyebrow')}</p>
            <h2 id="results-title" className="section-title">
              {t('landing.results.title')}
            </h2>
            <p className="lead">{t('landing.results.text')}</p>
            <ul className="check-list">
              <li>{t('landing.results.point1')}</li>
              <li>{t('landing.results.point2')}</li>
              <li>{t('landing.results.point3')}</li>
            </ul>
          </div>
          <Card as="div" className="sample-result" aria-label={t('landing.results.sampleLabel')}>
            <div className="job-panel-head">
              <strong>{t('landing.results.sampleJob')}</strong>
              <Badge tone="success">{t('status.done')}</Badge>
            </div>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('analyze.result.equipment')}</th>
                  <th scope="col">{t('analyze.result.status')}</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">{t('landing.scene.labels.helmet')}</th>
                  <td>
                    <Badge tone="success">✓ {t('analyze.result.present')}</Badge>
                  </td>
                </tr>
                <tr>
                  <th scope="row">{t('landing.scene.labels.gloves')}</th>
                  <td>
                    <Badge tone="neutral">? {t('analyze.result.notChecked')}</Badge>
                  </td>
                </tr>
                <tr>
                  <th scope="row">{t('landing.scene.labels.vest')}</th>
                  <td>
                    <Badge tone="success">✓ {t('analyze.result.present')}</Badge>
                  </td>
                </tr>
              </tbody>
            </table>
            <p className="muted small">{t('landing.results.sampleNote')}</p>
            <dl className="stats">
              <div className="stat">
                <dt>{t('analyze.result.duration')}</dt>
                <dd>{t('duration.minutesSeconds', { minutes: 1, seconds: 24 })}</dd>
              </div>
              <div className="stat">
                <dt>{t('analyze.result.composites')}</dt>
                <dd>6</dd>
              </div>
              <div className="stat">
                <dt>{t('analyze.result.cost')}</dt>
                <dd>{formatCost(0, 'USD', i18n.language)}</dd>
              </div>
            </dl>
          </Card>
        </div>
      </section>

      <section className="section cta-band">
        <div className="container cta-band-inner">
          <h2 className="section-title">{t('landing.cta.title')}</h2>
          <p className="lead">{t('landing.cta.text')}</p>
          <ButtonLink to={user ? paths.app.dashboard.path : paths.auth.register.path} size="lg">
            {user ? t('landing.hero.ctaDashboard') : t('landing.hero.ctaRegister')}
          </ButtonLink>
        </div>
      </section>

      <DemoVideoModal open={videoOpen} url={demo.url} onClose={() => setVideoOpen(false)} />
    </>
  );
}
