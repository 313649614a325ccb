declare module 'virtual:public-texts' {
  /** Some groups of texts of each language (web/scripts/public-texts.ts). */
  const texts: Record<'tr' | 'en', Record<string, unknown>>;
  export default texts;
}
