import { readdirSync } from 'node:fs';

import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const SERVICES = ['identity', 'quota', 'job', 'analysis', 'notification', 'gateway', 'standalone', 'platform'];

/** Services never import each other: only @baret/platform and @baret/proto (standalone composes them all). */
const boundaries = SERVICES.filter((s) => s !== 'standalone').map((service) => {
  const others = SERVICES.filter((s) => s !== service && s !== 'platform');
  return {
    files: [`services/${service}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...others.map((o) => ({
              group: [`@baret/${o}`, `@baret/${o}/*`, `**/${o}/src/**`, `**/services/${o}/**`],
              message: `services never import each other: ${service} may import only @baret/platform and @baret/proto`,
            })),
            ...(service === 'platform'
              ? [{ group: SERVICES.filter((s) => s !== 'platform').map((s) => `@baret/${s}`), message: 'platform imports no service' }]
              : []),
          ],
        },
      ],
    },
  };
});

/** Web (bulletproof-react): features never import each other; shared code never imports features or app. */
const FEATURES = (() => {
  try {
    return readdirSync(new URL('./web/src/features', import.meta.url), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
})();
const webBoundaries = [
  ...FEATURES.map((feature) => ({
    files: [`web/src/features/${feature}/**/*.{ts,tsx}`],
    ignores: ['web/src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/features/*', `!@/features/${feature}`, '@/app/*', '@/app'],
              message: 'features do not import each other or the app; compose them in web/src/app/routes',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['web/src/{components,lib,config,hooks,types}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@/features/*', '@/app/*', '@/app'], message: 'shared code never imports features or the app' }] }],
    },
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/dev-dist/**', 'proto/gen/**', 'data/**', 'coverage/**', 'web/public/**', 'tmp/**', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules, 'react-hooks/exhaustive-deps': 'error' },
  },
  ...webBoundaries,
  { files: ['scripts/**', 'bench/**', 'tests/**', '**/*.spec.ts', '**/*.mjs'], rules: { 'no-console': 'off' } },
  ...boundaries,
  /** Services read as their parts (issue 52): no function over 100 lines; the PDF's drawing is split by section. */
  {
    files: ['services/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 100 }] },
  },
);
