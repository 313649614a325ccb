import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['services/*/test/**/*.spec.ts', 'services/*/src/**/*.spec.ts', 'tests/**/*.spec.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      'web/vitest.config.ts',
    ],
  },
});
