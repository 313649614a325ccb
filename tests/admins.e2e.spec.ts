import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, parseConfig } from '@baret/platform';
import { createStandalone } from '@baret/standalone';
import { startTestApp } from './helpers/app.js';

const run = promisify(execFile);
const root = join(__dirname, '..');

describe('admin bootstrap', () => {
  it('promotes a registered user with `npm run admin -- promote EMAIL`, and refuses unknown addresses', async () => {
    const app = await startTestApp();
    try {
      const user = await app.signUp('crew.lead@example.com');
      const env = { ...process.env, BARET_DATA_DIR: app.dir, JWT_SECRET: 'test-secret-test-secret-test-secret-0123', LOG_LEVEL: 'silent' };
      const ok = await run('npm', ['run', '--silent', 'admin', '--', 'promote', 'Crew.Lead@example.com'], { cwd: root, env });
      expect(ok.stdout).toContain('crew.lead@example.com is now an admin.');
      const me = await app.request({ method: 'GET', url: '/auth/me', token: user.token });
      expect(me.json()).toMatchObject({ is_admin: true });
      expect((await app.request({ method: 'GET', url: '/admin/users/quotas', token: user.token })).statusCode).toBe(200);

      const missing = await run('npm', ['run', '--silent', 'admin', '--', 'promote', 'nobody@example.com'], { cwd: root, env }).catch((e: { code: number; stderr: string }) => e);
      expect(missing).toMatchObject({ code: 1 });
      expect((missing as { stderr: string }).stderr).toContain('No user with the email nobody@example.com');
    } finally {
      await app.close();
    }
  }, 60_000);

  it('promotes users named in BARET_ADMIN_EMAILS at start, when they registered and confirmed their address before; not an unconfirmed one', async () => {
    const app = await startTestApp();
    const user = await app.signUp('later.admin@example.com');
    await app.confirmEmail(user.id);
    const unconfirmed = await app.signUp('other@example.com');
    await app.app.close();
    await app.stop();
    const config = { ...parseConfig({ LOG_LEVEL: 'silent', BARET_ADMIN_EMAILS: ' LATER.admin@example.com , other@example.com' }), BARET_DATA_DIR: app.dir, JWT_SECRET: 'test-secret-test-secret-test-secret-0123' };
    const restarted = await createStandalone({ config, logger: createLogger('silent'), background: false });
    try {
      await restarted.app.ready();
      const me = await restarted.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${user.token}` } });
      expect(me.json()).toMatchObject({ is_admin: true });
      const other = await restarted.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${unconfirmed.token}` } });
      expect(other.json()).toMatchObject({ is_admin: false, email_verified: false });
    } finally {
      await restarted.app.close();
      await restarted.stop();
    }
  }, 60_000);
});
