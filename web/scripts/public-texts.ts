import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Plugin } from 'vite';

/** The top-level groups of texts the landing page and the app's frame use (web/src/lib/i18n.ts). */
export const PUBLIC_TEXT_GROUPS = ['analyze', 'brand', 'common', 'duration', 'footer', 'landing', 'nav', 'offline', 'shell', 'status', 'titles'] as const;

const ID = 'virtual:public-texts';

/**
 * `import texts from 'virtual:public-texts'`: those groups of tr.json and en.json only, so the
 * first load carries them and not every text of both languages (issue 40); the full files are
 * separate chunks fetched when a page needs them.
 */
export function publicTexts(localesDir: string): Plugin {
  return {
    name: 'baret-public-texts',
    resolveId: (source) => (source === ID ? `\0${ID}` : null),
    load(id) {
      if (id !== `\0${ID}`) return null;
      const pick = (lang: string) => {
        const file = join(localesDir, `${lang}.json`);
        this.addWatchFile(file);
        const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        return Object.fromEntries(PUBLIC_TEXT_GROUPS.map((group) => [group, all[group]]));
      };
      return `export default ${JSON.stringify({ tr: pick('tr'), en: pick('en') })};`;
    },
  };
}
