import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

import { setRequestLanguage } from '@/lib/api-client';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import publicTexts from 'virtual:public-texts';

export const LANGUAGES = ['tr', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'tr';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function storedLanguage(): Language {
  const stored = storage.get(STORAGE_KEYS.language);
  return isLanguage(stored) ? stored : DEFAULT_LANGUAGE;
}

/** The page's lang attribute and the Accept-Language of API calls follow the UI language. */
function applyDocumentLanguage(lng: string): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
  setRequestLanguage(lng);
}

export const i18n = i18next.createInstance();

/*
 * What the landing page and the app's frame say (virtual:public-texts) comes with the first load (issue 40: < 150 KB on a
 * phone); every other text of a language is fetched with the first page that needs it
 * (`withAllTexts`), or when the language changes after that.
 */
void i18n.use(initReactI18next).init({
  resources: { tr: { translation: publicTexts.tr }, en: { translation: publicTexts.en } },
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
  // Texts fetched later (loadAllTexts) re-render what shows, the document title among them.
  react: { bindI18nStore: 'added' },
});
applyDocumentLanguage(i18n.language);
i18n.on('languageChanged', applyDocumentLanguage);

const allTexts = new Map<Language, Promise<void>>();
let allTextsWanted = false;

/** Every text of a language, fetched once and added to what the first load brought. */
export function loadAllTexts(lng: Language): Promise<void> {
  let loading = allTexts.get(lng);
  if (!loading) {
    loading = (lng === 'en' ? import('@/locales/en.json') : import('@/locales/tr.json')).then((m) => {
      i18n.addResourceBundle(lng, 'translation', m.default, true, true);
    });
    loading.catch(() => allTexts.delete(lng));
    allTexts.set(lng, loading);
  }
  return loading;
}

/** A lazy page's import that resolves once every text of the current language is there too. */
export function withAllTexts<T>(load: () => Promise<T>): () => Promise<T> {
  return async () => {
    allTextsWanted = true;
    const [page] = await Promise.all([load(), loadAllTexts(currentLanguage())]);
    return page;
  };
}

/** Switches the UI language and remembers it. */
export async function setLanguage(lng: Language): Promise<void> {
  storage.set(STORAGE_KEYS.language, lng);
  if (allTextsWanted) await loadAllTexts(lng);
  await i18n.changeLanguage(lng);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}
