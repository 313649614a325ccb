/**
 * Helpers of the field-mode browser tests (tests/browser/pwa*.e2e.spec.ts): the built web app,
 * the real standalone server in its own process, and Debian's Chromium via playwright-core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { api, startBaret, type RunningBaret } from '../helpers/process.js';

// One build helper for every browser test: the same staleness rule, lock and production build.
import { CHROMIUM_ARGS, WEB_DIST } from '../helpers/browser.js';

export { CHROMIUM_ARGS, ensureWebBuilt, WEB_DIST } from '../helpers/browser.js';

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
