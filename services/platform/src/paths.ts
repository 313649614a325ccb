import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file whose package.json declares workspaces. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const json = JSON.parse(readFileSync(pkg, 'utf8')) as { workspaces?: unknown };
        if (json.workspaces) return dir;
      } catch {
        /* not a readable package.json: keep climbing */
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/**
 * The team's shared folder (spec, data sets): `BARET_SHARED_DIR` when set, otherwise `../shared`
 * beside the repository.
 */
export function sharedDir(): string {
  const fromEnv = process.env.BARET_SHARED_DIR;
  return fromEnv ? resolve(fromEnv) : resolve(repoRoot(), '..', 'shared');
}

/** A folder of the shared data sets, e.g. `sharedDataDir('ppe-photos')`. */
export function sharedDataDir(...parts: string[]): string {
  return join(sharedDir(), 'data', ...parts);
}

/** Baret's version, from the repository's package.json. */
export function baretVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
