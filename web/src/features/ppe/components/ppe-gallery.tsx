import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

import { ButtonLink } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { equipmentCatalog, type EquipmentEntry } from '@/features/ppe/api/equipment-catalog';
import { Pictogram, pictogramKindFor, type PictogramKind } from '@/features/ppe/components/pictograms';
import { useAuth } from '@/lib/auth';

/** Pictograms looked up by lowercase equipment code. */
export function buildPictogramIndex(entries: readonly EquipmentEntry[]): Map<string, PictogramKind> {
  const index = new Map<string, PictogramKind>();
  for (const entry of entries) {
    const kind = pictogramKindFor({ category: entry.category, titleEn: entry.title.en, titleTr: entry.title.tr });
    if (kind) index.set(entry.code.toLowerCase(), kind);
  }
  return index;
}

function Placeholder({ label }: { label: string }) {
  return (
    <div className="pict-placeholder" role="img" aria-label={label}>
      <svg viewBox="0 0 64 64" width="40" height="40" aria-hidden="true">
        <rect x="8" y="12" width="48" height="40" rx="6" fill="none" stroke="currentColor" strokeWidth="3" strokeDasharray="6 5" />
        <path d="M18 44l10-12 8 9 6-6 6 9" fill="none" stroke="currentColor" strokeWidth="3" strokeLinejoin="round" />
      </svg>
      <span>{label}</span>
    </div>
  );
}

export function PpeGallery({ entries = equipmentCatalog }: { entries?: readonly EquipmentEntry[] }) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const lang = i18n.language === 'en' ? 'en' : 'tr';
  const index = useMemo(() => buildPictogramIndex(entries), [entries]);
  return (
    <div className="container section">
      <header className="section-head">
        <p className="eyebrow">{t('ppe.eyebrow')}</p>
        <h1 className="section-title">{t('ppe.title')}</h1>
        <p className="lead">{t('ppe.lead')}</p>
      </header>
      {entries.length === 0 ? (
        <p className="muted">{t('ppe.empty')}</p>
      ) : (
        <ul className="ppe-grid">
          {entries.map((entry) => {
            const kind = index.get(entry.code.toLowerCase());
            const title = entry.title[lang] || entry.title.en;
            const description = entry.description?.[lang] || entry.description?.en;
            return (
              <li key={entry.code} className="card ppe-card">
                <div className="ppe-image">{kind ? <Pictogram kind={kind} label={title} /> : <Placeholder label={t('ppe.missingImage')} />}</div>
                <div className="ppe-body">
                  <code className="ppe-code">{entry.code}</code>
                  <h2 className="ppe-title">{title}</h2>
                  {description ? <p className="muted small">{description}</p> : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <section className="cta-band card" aria-labelledby="ppe-cta">
        <div className="cta-band-inner">
          <h2 id="ppe-cta" className="section-title">
            {t('ppe.ctaTitle')}
          </h2>
          <p className="lead">{t('ppe.ctaText')}</p>
          <ButtonLink to={user ? paths.app.dashboard.path : paths.auth.register.path} size="lg">
            {user ? t('landing.hero.ctaDashboard') : t('landing.hero.ctaRegister')}
          </ButtonLink>
        </div>
      </section>
    </div>
  );
}
