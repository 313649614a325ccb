import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, parseConfig, type Config, type Principal } from '@baret/platform';
import { createStandalone, type Standalone, type StandaloneOptions } from '@baret/standalone';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/** A clock tests can move. */
export class TestClock {
  constructor(private current = new Date('2026-03-15T10:00:00.000Z')) {}
  now = (): Date => new Date(this.current);
  set(iso: string): void {
    this.current = new Date(iso);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** The JWT secret of every test app (tests forge tokens against it). */
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123';

export interface TestApp extends Standalone {
  dir: string;
  clock: TestClock;
  request(options: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  /**
   * Registers and logs in; returns the access token and the user id. An address of
   * BARET_ADMIN_EMAILS is confirmed too (it becomes admin only then, issue 37).
   */
  signUp(email: string, password?: string, fullName?: string): Promise<{ token: string; id: string }>;
  /** Opens the confirmation link mailed at registration (its token read from the user's events). */
  confirmEmail(userId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    clock?: TestClock;
    realClock?: boolean;
    background?: boolean;
    analysis?: StandaloneOptions['analysis'];
    /** The data folder of an app closed before (a restart with other settings); kept at close. Default: a fresh one, removed at close. */
    dir?: string;
    /** A built web app to serve (its index.html answers the app's routes); default none. */
    webDir?: string;
  } = {},
): Promise<TestApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'baret-test-'));
  const clock = options.clock ?? new TestClock();
  const config: Config = {
    ...parseConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000', ...env }),
    BARET_DATA_DIR: dir,
    JWT_SECRET: TEST_JWT_SECRET,
  };
  const standalone = await createStandalone({
    config,
    logger: createLogger(config.LOG_LEVEL),
    clock: options.realClock ? undefined : clock.now,
    scrypt: { N: 1024, r: 8, p: 1 },
    background: options.background,
    analysis: options.analysis,
    webDir: options.webDir,
  });
  await standalone.app.ready();
  // Tests read English messages unless they ask for a language (the API's default is Turkish).
  const request: TestApp['request'] = ({ token, headers, ...rest }) =>
    standalone.app.inject({ ...rest, headers: { 'accept-language': 'en', ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  let signUps = 0;
  const adminEmails = new Set((config.BARET_ADMIN_EMAILS ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean));
  const confirmEmail = async (userId: string) => {
    const events = await standalone.infra.eventStore.readStream(`user-${userId}`);
    const token = (events.filter((e) => e.type === 'email_verification_requested').at(-1)?.data as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') throw new Error(`no confirmation mailed to ${userId}`);
    const res = await request({ method: 'POST', url: '/auth/verify-email', payload: { token } });
    if (res.statusCode !== 204) throw new Error(`verify-email: ${res.statusCode} ${res.body}`);
  };
  return {
    ...standalone,
    dir,
    clock,
    request,
    confirmEmail,
    signUp: async (email, password = 'correct horse battery', fullName) => {
      // Each sign-up comes from its own loopback address, as different people would.
      const remoteAddress = `127.1.${Math.floor(++signUps / 250)}.${(signUps % 250) + 1}`;
      const reg = await request({ method: 'POST', url: '/auth/register', remoteAddress, payload: { email, password, ...(fullName ? { full_name: fullName } : {}) } });
      if (reg.statusCode !== 201) throw new Error(`register ${email}: ${reg.statusCode} ${reg.body}`);
      const login = await request({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password } });
      if (login.statusCode !== 200) throw new Error(`login ${email}: ${login.statusCode} ${login.body}`);
      if (adminEmails.has(email.trim().toLowerCase())) await confirmEmail((reg.json() as { id: string }).id);
      return { token: (login.json() as { access_token: string }).access_token, id: (reg.json() as { id: string }).id };
    },
    close: async () => {
      await standalone.app.close();
      await standalone.stop();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A principal as the gateway hands it on, for calling a service's commands directly in a test. */
export async function principalFor(app: TestApp, userId: string): Promise<Principal> {
  return { ...(await app.identity.auth.userById(userId))!, via: 'jwt' };
}

/**
 * A job of `userId` recorded as finished a minute ago with `result` (no video, no analysis), the way
 * the tests of reviews and the audit log start from a done job.
 */
export async function recordFinishedJob(app: TestApp, userId: string, result: Record<string, unknown>): Promise<string> {
  const now = new Date();
  return app.job.recordFinishedJobWithoutVideo(await principalFor(app, userId), {
    queued_at: new Date(now.getTime() - 60_000),
    finished_at: now,
    job_type: 'genel_saha_girisi',
    input_filename: 'direk.mp4',
    result,
    site_id: null,
    crew_id: null,
    work_order: null,
  });
}
