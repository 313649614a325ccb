/**
 * Reserved ports (testing/engines/ports.ts): an engine killed with SIGKILL must find its ports free
 * when it starts again, even with other test runs on the machine. Each case uses its own lock
 * folder and port range, so it neither sees nor disturbs the locks of a real run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ephemeralPortRange, releasePort, reservedPortRange, reservePort } from '../src/testing/engines/ports.js';

const repo = join(import.meta.dirname, '..', '..', '..');

describe('reserved ports', () => {
  let dir: string;
  const saved = { range: process.env.BARET_PORT_RANGE, lock: process.env.BARET_PORT_LOCK_DIR };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baret-ports-test-'));
    process.env.BARET_PORT_LOCK_DIR = dir;
  });
  afterEach(() => {
    for (const [key, value] of [['BARET_PORT_RANGE', saved.range], ['BARET_PORT_LOCK_DIR', saved.lock]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('by default lie below the ephemeral range, where the OS never hands out a port', async () => {
    delete process.env.BARET_PORT_RANGE;
    const ephemeral = ephemeralPortRange();
    const [lo, hi] = reservedPortRange();
    if (ephemeral) expect(hi < ephemeral[0] || lo > ephemeral[1]).toBe(true);
    const port = await reservePort();
    expect(port).toBeGreaterThanOrEqual(lo);
    expect(port).toBeLessThanOrEqual(hi);
    expect(readFileSync(join(dir, String(port)), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    releasePort(port);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('are never handed to two processes at once, and come back once given back', async () => {
    // 24 ports, 3 other processes reserving 6 each at the same moment as this one reserves 6.
    process.env.BARET_PORT_RANGE = '21000-21023';
    const script = `import { reservePort } from './services/platform/src/testing/engines/ports.ts';
      const ports = []; for (let i = 0; i < 6; i++) ports.push(await reservePort());
      console.log(JSON.stringify(ports)); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
    // Each holds its ports until its stdin closes.
    const children = Array.from({ length: 3 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, env: process.env, stdio: ['pipe', 'pipe', 'inherit'] }));
    const others = children.map((child) =>
      new Promise<number[]>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
        });
        child.on('exit', (code) => (code ? reject(new Error(`exited with ${code}`)) : undefined));
      }),
    );
    const mine: number[] = [];
    for (let i = 0; i < 6; i++) mine.push(await reservePort());
    try {
      const all = [...mine, ...(await Promise.all(others)).flat()];
      expect(new Set(all).size).toBe(24);
      // The range is full while every owner holds its ports.
      await expect(reservePort()).rejects.toThrow(/no free port left/);
      releasePort(mine[0]!);
      expect(await reservePort()).toBe(mine[0]);
      // A run that ends gives its ports back (at exit): another process gets them.
      const ended = children[0]!;
      const exited = new Promise((r) => ended.once('exit', r));
      ended.stdin.end();
      await exited;
      const again = await reservePort();
      expect((await others[0])).toContain(again);
    } finally {
      for (const child of children) child.stdin.end();
      for (const port of mine) releasePort(port);
    }
  }, 60_000);

  it('held by a process that is gone (killed with SIGKILL) are taken over', async () => {
    process.env.BARET_PORT_RANGE = '21100-21115';
    // A process that existed and ended: its id is free (or reused by a process started later).
    const gone = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)']).toString());
    for (let port = 21100; port <= 21115; port++) writeFileSync(join(dir, String(port)), `${gone} 1`);
    const port = await reservePort();
    expect(port).toBeGreaterThanOrEqual(21100);
    expect(readFileSync(join(dir, String(port)), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    releasePort(port);
  });

  it('are skipped when a process outside the scheme listens there', async () => {
    process.env.BARET_PORT_RANGE = '21200-21215';
    const servers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => new Promise<Server>((resolve) => {
        const s = createServer();
        s.once('error', (e) => { throw e; });
        s.listen(21200 + i, '127.0.0.1', () => resolve(s));
      })),
    );
    try {
      expect(await reservePort()).toBe(21215);
    } finally {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });
});
