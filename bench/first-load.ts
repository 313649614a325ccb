/**
 * The landing page's first load on a phone (issue 40): Chromium at a phone's size opens `/` of the
 * real server (`npm start` serving the built web app) with an empty cache, and every file it fetches
 * before the network is idle is counted at its brotli size (the `.br` copy the server sends; images
 * as they are). Target: < 150 KB — what a public landing page needs first; the app's code after sign-in.
 *
 * Run alone with `npx tsx bench/first-load.ts`, or through `npm run bench`.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_DIST, ensureWebBuilt, openBrowser, startServerForBrowser } from '../tests/helpers/browser.js';

const TARGET_KB = 150;
const PHONE = { width: 390, height: 844 };

/** The bytes a file costs on the wire: its brotli copy when the build made one. */
function wireBytes(pathname: string): number {
  const file = join(WEB_DIST, pathname === '/' ? 'index.html' : decodeURIComponent(pathname));
  if (existsSync(`${file}.br`)) return statSync(`${file}.br`).size;
  return existsSync(file) ? statSync(file).size : 0;
}

export async function runFirstLoadBench(): Promise<{ totalKb: number; jsKb: number }> {
  console.log('\n## Landing page first load on a phone (390×844, empty cache) — brotli bytes of every file fetched until the network is idle');
  await ensureWebBuilt();
  const server = await startServerForBrowser();
  const session = await openBrowser({ viewport: PHONE, locale: 'tr-TR' });
  try {
    const files = new Map<string, number>();
    session.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === server.url && request.method() === 'GET' && !url.pathname.startsWith('/auth') && !files.has(url.pathname)) files.set(url.pathname, 0);
    });
    await session.page.goto(`${server.url}/`, { waitUntil: 'networkidle' });
    await session.page.getByRole('heading', { level: 1 }).first().waitFor();
    for (const path of files.keys()) files.set(path, wireBytes(path));
    const kb = (n: number) => n / 1024;
    const byKind = new Map<string, number>();
    for (const [path, bytes] of files) {
      const kind = /\.js$/.test(path) ? 'JavaScript' : /\.css$/.test(path) ? 'CSS' : path === '/' || path.endsWith('.html') ? 'HTML' : /\.(png|svg|jpe?g|webp|ico|woff2?)$/.test(path) ? 'images and fonts' : 'other';
      byKind.set(kind, (byKind.get(kind) ?? 0) + bytes);
    }
    const total = [...files.values()].reduce((a, b) => a + b, 0);
    for (const [kind, bytes] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`  ${kind.padEnd(18)} ${kb(bytes).toFixed(1).padStart(7)} KB`);
    for (const [path, bytes] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    ${path.padEnd(50)} ${kb(bytes).toFixed(1).padStart(7)} KB`);
    console.log(`  first load: ${kb(total).toFixed(1)} KB in ${files.size} files (target < ${TARGET_KB} KB: ${kb(total) < TARGET_KB ? 'met' : 'NOT met'})`);
    return { totalKb: kb(total), jsKb: kb(byKind.get('JavaScript') ?? 0) };
  } finally {
    await session.close();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runFirstLoadBench();
