import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbeddedInfrastructure, type IncomingMessage } from '@baret/platform';

const dir = mkdtempSync(join(tmpdir(), 'baret-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer until it acknowledged `target` appends, then kills it with SIGKILL. */
function runAndKill(target: number): Promise<{ acked: number; handled: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures/durability-child.ts'), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    const handled: number[] = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [what, n] = line.split(' ');
        if (what === 'ack') acked = Number(n);
        if (what === 'handled') handled.push(Number(n));
        if (acked >= target && !child.killed) child.kill('SIGKILL');
      }
    });
    // 'close', not 'exit': only once its stdout is drained do we know the child's last line
    // (on a busy machine 'exit' came first and the test compared against a stale "handled").
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed (${String(signal)})`));
      else resolve({ acked, handled });
    });
  });
}

describe('durability of the embedded adapters under kill -9', () => {
  it('keeps every acknowledged event and message, and the consumer resumes from its committed offset', async () => {
    const { acked, handled } = await runAndKill(300);
    expect(acked).toBeGreaterThanOrEqual(300);
    expect(handled.length).toBeGreaterThan(0);

    const infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
    try {
      const events = await infra.eventStore.readStream('job-durable');
      // Every acknowledged append is there, in order, with no gap (an unacknowledged one may be too).
      expect(events.length).toBeGreaterThanOrEqual(acked);
      expect(events.slice(0, acked).map((e) => (e.data as { i: number }).i)).toEqual(
        Array.from({ length: acked }, (_, k) => k + 1),
      );

      const lastHandled = handled[handled.length - 1]!;
      const redelivered: number[] = [];
      let done!: () => void;
      const finished = new Promise<void>((r) => (done = r));
      // A marker after everything the writer sent: when the consumer had handled every message before
      // the kill (a writer slowed by sealing its events, issue 30), the marker is the first one seen.
      await infra.bus.publish('t', [{ key: 'k', value: new TextEncoder().encode(String(acked + 1)) }]);
      const sub = await infra.bus.subscribe('g', ['t'], async (m: IncomingMessage) => {
        const n = Number(new TextDecoder().decode(m.value));
        redelivered.push(n);
        if (n >= acked) done();
      });
      await finished;
      await sub.close();
      // The group resumes right after its last commit: at most the one in-flight message is seen again.
      expect(redelivered[0]).toBeGreaterThanOrEqual(lastHandled);
      expect(redelivered[0]).toBeLessThanOrEqual(lastHandled + 1);
      // …and nothing acknowledged after it is missing.
      const expected = Array.from({ length: acked - redelivered[0]! + 1 }, (_, k) => redelivered[0]! + k);
      expect(redelivered.slice(0, expected.length)).toEqual(expected);
    } finally {
      await infra.close();
    }
  }, 60_000);
});
