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
});
