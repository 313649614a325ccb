// Compiles every service's entry point to services/<name>/dist/*.js for production runs
// (`node bin/baret.mjs <service>`): workspace code (@baret/*) is bundled in, npm packages stay
// external and load from node_modules. `--watch` rebuilds on change.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The detector's worker thread (services/analysis/src/engine/detectorPool.ts) loads
// `detectorThread.js` from beside the bundle that starts it: every bundle that holds the analysis.
const detectorThread = { out: 'detectorThread', in: 'services/analysis/src/engine/detectorThread.ts' };
const entries = {
  identity: ['main'],
  quota: ['main'],
  job: ['main'],
  analysis: ['main', detectorThread],
  notification: ['main'],
  gateway: ['main'],
  standalone: ['main', 'admin-cli', detectorThread],
};

/** Bare imports other than the workspace's own packages stay imports of node_modules. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@baret/') ? undefined : { path: args.path, external: true }));
  },
};

const started = Date.now();
await Promise.all(
  Object.entries(entries).map(async ([service, names]) => {
    const outdir = join(root, 'services', service, 'dist');
    rmSync(outdir, { recursive: true, force: true });
    await build({
      entryPoints: names.map((n) => (typeof n === 'string' ? { out: n, in: join(root, 'services', service, 'src', `${n}.ts`) } : { out: n.out, in: join(root, n.in) })),
      outdir,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
      plugins: [externalPackages],
      // Bundled CommonJS helpers may call require(): give ES modules one.
      banner: { js: "import { createRequire as __baretCreateRequire } from 'node:module'; const require = __baretCreateRequire(import.meta.url);" },
    });
  }),
);
console.log(`built ${Object.values(entries).flat().length} entry points in ${Date.now() - started} ms`);
