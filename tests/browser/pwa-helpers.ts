/**
 * Helpers of the field-mode browser tests (tests/browser/pwa*.e2e.spec.ts): the built web app,
 * the real standalone server in its own process, and Debian's Chromium via playwright-core.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { api, startBaret, type RunningBaret } from '../helpers/process.js';

const run = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, '../..');
const WEB_DIR = join(REPO_ROOT, 'web');
export const WEB_DIST = join(WEB_DIR, 'dist');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function webBuildIsStale(): boolean {
  const built = join(WEB_DIST, 'sw.js');
  if (!existsSync(join(WEB_DIST, 'index.html')) || !existsSync(built)) return true;
  const sources = ['src', 'index.html', 'public', 'vite.config.ts', 'package.json'].map((p) => join(WEB_DIR, p)).filter((p) => existsSync(p));
  return Math.max(...sources.map(newestMtime)) > statSync(built).mtimeMs;
}

/** The same lock directory as the other browser tests: one `npm run build -w web` at a time. */
const BUILD_LOCK = join(tmpdir(), 'baret-web-build.lock');

/** Builds web/dist when it is missing or older than the web app's sources (a fresh clone works). */
export async function ensureWebBuilt(): Promise<void> {
  if (!webBuildIsStale()) return;
  const deadline = Date.now() + 240_000;
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

export interface LogLine {
  msg?: string;
  [key: string]: unknown;
}

export interface PwaServer extends RunningBaret {
  /** Every JSON log line the server printed since it started listening. */
  logs: LogLine[];
  stop(): Promise<void>;
}

/** The real server (`npm start`, PORT 0) on a temp data dir, serving the built web app. */
export async function startServer(env: Record<string, string> = {}): Promise<PwaServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'baret-pwa-'));
  const running = await startBaret({ BARET_DATA_DIR: dataDir, WEB_DIST_DIR: WEB_DIST, RATE_LIMIT_PER_MINUTE: '10000', ...env });
  const logs: LogLine[] = [];
  let buffer = '';
  running.child.stdout!.on('data', (c: Buffer) => {
    buffer += c.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        /* not a log line */
      }
    }
  });
  return {
    ...running,
    logs,
    stop: async () => {
      if (running.child.exitCode === null) {
        running.child.kill('SIGTERM');
        await running.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Runs in the page before the app: the web app keeps its session token in localStorage. */
const tokenScript = (token: string) =>
  `if (!window.localStorage.getItem('baret-token')) window.localStorage.setItem('baret-token', ${JSON.stringify(token)});`;

let accounts = 0;
/** A new user, registered and logged in through the API; returns the access token. */
export async function newUser(base: string): Promise<{ email: string; token: string }> {
  const email = `field${++accounts}-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const reg = await api(base, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password, full_name: 'Saha Ekibi' }) });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await api<{ access_token: string }>(base, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) });
  return { email, token: login.body.access_token };
}

/** A browser context already logged in as `token` (the web app keeps its token in localStorage). */
export async function loggedInContext(browser: Browser, token: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', ...options });
  await context.addInitScript(tokenScript(token));
  return context;
}

/**
 * A logged-in context on a real profile directory: Chromium reports "in-incognito" as an
 * installability error for ordinary (incognito) test contexts.
 */
export async function persistentLoggedInContext(token: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'baret-pwa-profile-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    reducedMotion: 'reduce',
  });
  await context.addInitScript(tokenScript(token));
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
