import { useTranslation } from 'react-i18next';

import { LANGUAGES, currentLanguage, setLanguage } from '@/lib/i18n';

export function LanguageToggle() {
  const { t, i18n } = useTranslation();
  const active = i18n.language ? currentLanguage() : 'tr';
  return (
    <div className="lang-toggle" role="group" aria-label={t('shell.language')}>
      {LANGUAGES.map((lng) => (
        <button
          key={lng}
          type="button"
          className={lng === active ? 'lang-btn active' : 'lang-btn'}
          aria-pressed={lng === active}
          lang={lng}
          onClick={() => void setLanguage(lng)}
        >
          {/* The name starts with what is shown ("EN"), then says it in full ("EN English"). */}
          {lng.toUpperCase()}{' '}
          <span className="visually-hidden">{t(`shell.languageName.${lng}`)}</span>
        </button>
      ))}
    </div>
  );
}
