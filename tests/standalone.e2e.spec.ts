import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'baret-standalone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the standalone process', () => {
  it('starts on PORT, answers health checks, and stops gracefully on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../services/standalone/src/main.ts')], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', BARET_DATA_DIR: dir, WEB_DIST_DIR: dir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: Array<Record<string, unknown>> = [];
    let address = '';
    const started = new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (c: Buffer) => {
        buffer += c.toString();
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const line of parts) {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (typeof entry.address === 'string') {
            address = entry.address;
            resolve();
          }
        }
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${String(code)}`)));
    });
    await started;
    const health = await fetch(`${address}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`${address}/readyz`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.some((l) => l.msg === 'stopped')).toBe(true);
    expect(logs.filter((l) => l.msg === 'request completed').every((l) => typeof l.request_id === 'string')).toBe(true);
  }, 60_000);

  it('refuses to start with a clear list of configuration problems', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../services/standalone/src/main.ts')], {
      env: { ...process.env, PORT: 'not-a-port', BARET_MODE: 'distributed', BARET_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain('PORT');
  }, 30_000);
});
