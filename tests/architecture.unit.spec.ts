import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');
const services = readdirSync(join(root, 'services'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules') return [];
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) ? [p] : [];
  });
}

describe('architecture', () => {
  it('services never import each other: only @baret/platform and @baret/proto (standalone composes them)', () => {
    const offences: string[] = [];
    for (const service of services.filter((s) => s !== 'standalone')) {
      for (const file of files(join(root, 'services', service))) {
        const source = readFileSync(file, 'utf8');
        for (const m of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
          const spec = m[1]!;
          const other = services.find((s) => s !== service && s !== 'platform' && (spec === `@baret/${s}` || spec.startsWith(`@baret/${s}/`) || new RegExp(`(^|/)(services/)?${s}/src(/|$)`).test(spec)));
          const platformImportsService = service === 'platform' && /^@baret\/(?!platform|proto)/.test(spec);
          if (other || platformImportsService) offences.push(`${relative(root, file)} imports ${spec}`);
        }
      }
    }
    expect(offences).toEqual([]);
  });

  it('the operator\'s run never imports the tests (issue 27: npm run distributed ran on test helpers)', () => {
    const offences = ['scripts/distributed.ts', 'scripts/stack.ts', 'services/standalone/src/admin-cli.ts']
      .map((f) => join(root, f))
      .filter((f) => /(?:from|import)\s*\(?\s*['"][^'"]*\/tests\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offences).toEqual([]);
  });
});

describe('paths of one machine', () => {
  it('no source, test, bench or script names an absolute path of the build machine', () => {
    const dirs = ['services', 'tests', 'bench', 'scripts', 'web/src'].map((d) => join(root, d));
    const offences = dirs
      .flatMap((d) => files(d))
      .filter((f) => /['"`]\/(work|home|root|Users)\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offences).toEqual([]);
  });

  it('the shared folder is ../shared beside the repository unless BARET_SHARED_DIR says otherwise', async () => {
    const { sharedDir, sharedDataDir, repoRoot } = await import('@baret/platform');
    const before = process.env.BARET_SHARED_DIR;
    try {
      delete process.env.BARET_SHARED_DIR;
      expect(repoRoot()).toBe(root);
      expect(sharedDir()).toBe(join(root, '..', 'shared'));
      process.env.BARET_SHARED_DIR = '/tmp/elsewhere';
      expect(sharedDataDir('ppe-photos')).toBe('/tmp/elsewhere/data/ppe-photos');
    } finally {
      if (before === undefined) delete process.env.BARET_SHARED_DIR;
      else process.env.BARET_SHARED_DIR = before;
    }
  });
});
