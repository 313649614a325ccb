import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A committed file of `services/analysis/models/`, found by walking up from this module: it runs from
 * its source (services/analysis/src/engine) and from the compiled bundles (services/<name>/dist,
 * the detector's thread included), which sit at other depths.
 */
export function committedModelFile(name: string): string {
  const relative = ['models', name];
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, ...relative), path.join(dir, 'services', 'analysis', ...relative)]) if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} not found above ${fileURLToPath(import.meta.url)}`);
  }
}
