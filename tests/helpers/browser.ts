/**
 * Helpers for the browser acceptance tests (tests/browser/*.e2e.spec.ts): the built web app, the
 * real standalone server in its own process, and Debian's Chromium driven by playwright-core.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

import { startBaret, type RunningBaret } from './process.js';

const run = promisify(execFile);

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const WEB_DIR = join(REPO_ROOT, 'web');
/** The built web app; BARET_E2E_WEB_DIST points the tests at another, already built copy. */
export const WEB_DIST = process.env.BARET_E2E_WEB_DIST ? resolve(process.env.BARET_E2E_WEB_DIST) : join(WEB_DIR, 'dist');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when web/dist/index.html is missing or older than a file of the web app's sources. */
export function webBuildIsStale(): boolean {
  const index = join(WEB_DIST, 'index.html');
  if (!existsSync(index)) return true;
  const sources = [join(WEB_DIR, 'src'), join(WEB_DIR, 'index.html'), join(WEB_DIR, 'public'), join(WEB_DIR, 'vite.config.ts')].filter((p) => existsSync(p));
  return Math.max(...sources.map(newestMtime)) > statSync(index).mtimeMs;
}

const BUILD_LOCK = join(tmpdir(), 'baret-web-build.lock');

/**
 * Builds the web app (`npm run build -w web`) when the build is missing or stale. Test files run
 * in parallel, so one build at a time: a lock directory, taken over when older than 3 minutes.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (process.env.BARET_E2E_WEB_DIST || !webBuildIsStale()) return;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      const age = existsSync(BUILD_LOCK) ? Date.now() - statSync(BUILD_LOCK).mtimeMs : 0;
      if (age > 180_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`could not take ${BUILD_LOCK}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    // vitest sets NODE_ENV=test, which would make Vite build a development bundle.
    const env = { ...process.env, NODE_ENV: 'production' };
    if (webBuildIsStale()) await run('npm', ['run', 'build', '-w', 'web'], { cwd: REPO_ROOT, env, maxBuffer: 32 * 1024 * 1024 });
  } finally {
    rmdirSync(BUILD_LOCK);
  }
}

export interface BrowserServer extends RunningBaret {
  dataDir: string;
  stop(): Promise<void>;
}

/** The real server (`npm start`) with its own data dir, serving the built web app. */
export async function startServerForBrowser(env: Record<string, string> = {}): Promise<BrowserServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'baret-browser-'));
  const running = await startBaret({ BARET_DATA_DIR: dataDir, WEB_DIST_DIR: WEB_DIST, RATE_LIMIT_PER_MINUTE: '10000', ...env });
  return {
    ...running,
    dataDir,
    stop: async () => {
      if (running.child.exitCode === null) {
        running.child.kill('SIGTERM');
        await running.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors and CSP violations seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Problems that are expected: Chromium asks for /favicon.ico. (The landing page no longer asks for
 * a demo video the server does not have: index.html says whether there is one.)
 */
export const EXPECTED_PROBLEMS = [/\/favicon\.ico\)?$/];

/**
 * A fresh Chromium profile (its own user-data dir) with one page. `problems` collects page
 * errors, console errors (CSP violations among them) and HTTP answers ≥ 400, except those
 * matching `ignore` (default: EXPECTED_PROBLEMS).
 */
export async function openBrowser(
  options: {
    viewport?: { width: number; height: number };
    ignore?: RegExp[];
    locale?: string;
    /** lets a test inject a script tag (axe-core) past the page's CSP */
    bypassCSP?: boolean;
    /** more Chromium switches (a fake camera) */
    args?: string[];
    /** permissions granted to the server's origin (camera) */
    permissions?: string[];
    /** a touch screen (a phone): no hover, a coarse pointer */
    hasTouch?: boolean;
  } = {},
): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'baret-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    ...(options.permissions ? { permissions: options.permissions } : {}),
    viewport: options.viewport ?? { width: 1280, height: 900 },
    reducedMotion: 'reduce',
    ...(options.bypassCSP ? { bypassCSP: true } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.hasTouch ? { hasTouch: true, isMobile: true } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const ignore = options.ignore ?? EXPECTED_PROBLEMS;
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const text = `http ${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
    if (!ignore.some((re) => re.test(text))) problems.push(text);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const url = message.location().url;
    const text = `console: ${message.text()}${url ? ` (${new URL(url).pathname})` : ''}`;
    if (!ignore.some((re) => re.test(text))) problems.push(text);
  });
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Where a failed browser test leaves its screenshot and collected problems. */
export const FAILURE_DIR = join(tmpdir(), 'baret-browser-failures');

/**
 * Runs `fn` with a fresh browser; on failure keeps a full-page screenshot in FAILURE_DIR and
 * adds the problems seen to the error. Fails when the page logged problems (page errors, CSP
 * violations, unexpected HTTP errors) even though `fn` passed.
 */
export async function withBrowser(name: string, fn: (session: BrowserSession) => Promise<void>, options?: Parameters<typeof openBrowser>[0]): Promise<void> {
  const session = await openBrowser(options);
  try {
    await fn(session);
    if (session.problems.length > 0) throw new Error(`the page reported problems:\n${session.problems.join('\n')}`);
  } catch (error) {
    mkdirSync(FAILURE_DIR, { recursive: true });
    const file = join(FAILURE_DIR, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await session.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    if (error instanceof Error) error.message += `\n(url ${session.page.url()}; screenshot ${file}; problems: ${JSON.stringify(session.problems)})`;
    throw error;
  } finally {
    await session.close();
  }
}

/**
 * The usual setup of a browser test file: the web app built, a short video of workers, and the
 * real server. Call in beforeAll; `stop` in afterAll.
 */
export async function startBrowserSuite(options: { video: string; env?: Record<string, string> }): Promise<{ server: BrowserServer; video: string; stop(): Promise<void> }> {
  const { videoFixtures } = await import('../../services/analysis/test/fixtures/videos.js');
  const built = ensureWebBuilt();
  const fixtures = await videoFixtures();
  const video = (await fixtures.photos(options.video, 4)).path;
  await built;
  const server = await startServerForBrowser(options.env);
  return {
    server,
    video,
    stop: async () => {
      await server.stop();
      await fixtures.dispose();
    },
  };
}

/**
 * The real server on the demo organisation `npm run admin -- seed-demo` makes (3 sites, 4 crews,
 * 200 jobs), with the built web app; `stop` ends it and removes its data.
 */
export async function startDemoOrgServer(env: Record<string, string> = {}, opts: { promote?: string } = {}): Promise<{ server: RunningBaret; stop: () => Promise<void> }> {
  const built = ensureWebBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'baret-browser-org-'));
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'services/standalone/src/admin-cli.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, BARET_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });
  await cli('seed-demo');
  // An operator's promotion: the first admin by e-mail waits for a confirmed address (issue 37).
  if (opts.promote) await cli('promote', opts.promote);
  await built;
  const server = await startBaret({ BARET_DATA_DIR: dataDir, WEB_DIST_DIR: WEB_DIST, RATE_LIMIT_PER_MINUTE: '10000', ...env });
  return {
    server,
    stop: async () => {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
