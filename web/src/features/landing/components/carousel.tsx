import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { SCENE_COUNT, ScenarioFrame, type SceneLabels } from '@/features/landing/components/scenes';

/** Time each frame stays (spec section 9). */
export const CAROUSEL_INTERVAL_MS = 4500;

export function ScenarioCarousel() {
  const { t } = useTranslation();
  const [index, setIndex] = useState(0);
  const [paused, setPaused] = useState(false);
  const [hovered, setHovered] = useState(false);

  useEffect(() => {
    if (paused || hovered) return;
    const id = setInterval(() => setIndex((i) => (i + 1) % SCENE_COUNT), CAROUSEL_INTERVAL_MS);
    return () => clearInterval(id);
  }, [paused, hovered]);

  const labels: SceneLabels = {
    helmet: t('landing.scene.labels.helmet'),
    harness: t('landing.scene.labels.harness'),
    faceShield: t('landing.scene.labels.faceShield'),
    arcSuit: t('landing.scene.labels.arcSuit'),
    gloves: t('landing.scene.labels.gloves'),
    tester: t('landing.scene.labels.tester'),
    vest: t('landing.scene.labels.vest'),
  };
  const title = (i: number) => t(`landing.scene.frames.${i}.title`);

  return (
    <section className="carousel" aria-roledescription="carousel" aria-label={t('landing.scene.label')} onMouseEnter={() => setHovered(true)} onMouseLeave={() => setHovered(false)}>
      <div className="carousel-viewport">
        {Array.from({ length: SCENE_COUNT }, (_, i) => (
          <figure
            key={i}
            className={i === index ? 'carousel-slide active' : 'carousel-slide'}
            aria-roledescription="slide"
            aria-label={t('landing.scene.position', { n: i + 1, total: SCENE_COUNT })}
            aria-hidden={i !== index}
          >
            <ScenarioFrame index={i} title={title(i)} labels={labels} />
            <figcaption>
              <strong>{title(i)}</strong>
              <span>{t(`landing.scene.frames.${i}.caption`)}</span>
            </figcaption>
          </figure>
        ))}
      </div>
      <div className="carousel-controls">
        <button type="button" className="icon-btn" onClick={() => setIndex((i) => (i - 1 + SCENE_COUNT) % SCENE_COUNT)} aria-label={t('landing.scene.previous')}>
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path d="M15 6l-6 6 6 6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
        <div className="carousel-dots">
          {Array.from({ length: SCENE_COUNT }, (_, i) => (
            <button
              key={i}
              type="button"
              className={i === index ? 'dot active' : 'dot'}
              aria-label={t('landing.scene.goTo', { n: i + 1 })}
              aria-current={i === index ? 'true' : undefined}
              onClick={() => setIndex(i)}
            />
          ))}
        </div>
        <button type="button" className="icon-btn" onClick={() => setIndex((i) => (i + 1) % SCENE_COUNT)} aria-label={t('landing.scene.next')}>
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path d="M9 6l6 6-6 6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
        <button type="button" className="icon-btn" onClick={() => setPaused((p) => !p)} aria-label={paused ? t('landing.scene.play') : t('landing.scene.pause')} aria-pressed={paused}>
          {paused ? (
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
              <path d="M8 5l11 7-11 7z" fill="currentColor" />
            </svg>
          ) : (
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
              <path d="M7 5h4v14H7zM13 5h4v14h-4z" fill="currentColor" />
            </svg>
          )}
        </button>
      </div>
    </section>
  );
}
