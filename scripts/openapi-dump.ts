/**
 * Writes the embedded Baret's /openapi.json to a file, so that two checkouts can be compared byte for
 * byte (issue 52: a refactor leaves the API as it was).
 *
 *   npx tsx scripts/openapi-dump.ts OUT.json
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startBaret } from '../tests/helpers/process.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx scripts/openapi-dump.ts OUT.json');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'baret-openapi-'));
try {
  const baret = await startBaret({ BARET_DATA_DIR: dir, WEB_DIST_DIR: dir });
  try {
    const res = await fetch(`${baret.url}/openapi.json`);
    if (!res.ok) throw new Error(`/openapi.json answered ${res.status}`);
    writeFileSync(out, await res.text());
    console.log(`wrote ${out}`);
  } finally {
    baret.child.kill('SIGTERM');
    await baret.exited;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
