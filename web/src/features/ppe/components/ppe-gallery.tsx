import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ButtonLink } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { equipmentCatalog, type EquipmentEntry } from '@/features/ppe/api/equipment-catalog';
import { Pictogram, pictogramFor, type PictogramSpec } from '@/features/ppe/components/pictograms';
import { useAuth } from '@/lib/auth';

/** Pictograms looked up by lowercase equipment code. */
export function buildPictogramIndex(entries: readonly EquipmentEntry[]): Map<string, PictogramSpec> {
  const index = new Map<string, PictogramSpec>();
  for (const entry of entries) {
    const spec = pictogramFor({ category: entry.category, titleEn: entry.title.en, titleTr: entry.title.tr });
    if (spec) index.set(entry.code.toLowerCase(), spec);
  }
  return index;
}

/** The categories present in the catalogue, in catalogue order. */
export function categoriesOf(entries: readonly EquipmentEntry[]): string[] {
  return [...new Set(entries.map((entry) => entry.category))];
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
  const categories = useMemo(() => categoriesOf(entries), [entries]);
  const [category, setCategory] = useState('');
  const filterId = useId();
  const shown = category ? entries.filter((entry) => entry.category === category) : entries;
  const categoryName = (id: string) => t(`ppe.categories.${id}`, { defaultValue: id });
  return (
    <div className="container section">
      <header className="section-head">
        <p className="eyebrow">{t('ppe.eyebrow')}</p>
        <h1 className="section-title">{t('ppe.title')}</h1>
        <p className="lead">{t('ppe.lead')}</p>
      </header>
      {entries.length > 0 ? (
        <div className="ppe-filter">
          <label htmlFor={filterId} className="field-label">
            {t('ppe.filter')}
          </label>
          <select id={filterId} className="input" value={category} onChange={(event) => setCategory(event.target.value)}>
            <option value="">{t('ppe.allCategories', { count: entries.length })}</option>
            {categories.map((id) => (
              <option key={id} value={id}>
                {categoryName(id)} ({entries.filter((entry) => entry.category === id).length})
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {entries.length === 0 ? (
        <p className="muted">{t('ppe.empty')}</p>
      ) : (
        <ul className="ppe-grid" aria-label={category ? categoryName(category) : t('ppe.title')}>
          {shown.map((entry) => {
            const spec = index.get(entry.code.toLowerCase());
            const title = entry.title[lang] || entry.title.en;
            const description = entry.description?.[lang] || entry.description?.en;
            return (
              <Card as="li" key={entry.code} className="ppe-card">
                <div className="ppe-image">{spec ? <Pictogram {...spec} label={title} /> : <Placeholder label={t('ppe.missingImage')} />}</div>
                <div className="ppe-body">
                  {/* Its family in words, not the catalogue's internal code (pic1…pic42: issue 40). */}
                  <span className="ppe-code">{categoryName(entry.category)}</span>
                  <h2 className="ppe-title">{title}</h2>
                  {description ? <p className="muted small">{description}</p> : null}
                </div>
              </Card>
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
