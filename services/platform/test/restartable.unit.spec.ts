/**
 * The restart machinery the distributed runner and the fault tests use (issue 27): one server
 * process per data folder at any time. Two brokers on one Kafka folder corrupt its metadata log, so
 * restarts asked for at once start one process, and a kill while a restart is under way ends the
 * starting process and that restart. The "server" here is a real child process that answers after
 * a moment, like an engine recovering its data.
 */
import { describe, expect, it } from 'vitest';
import { restartable, spawnEngine, waitUntil, type EngineProcess } from '../src/testing/index.js';

/** A server that says "ready" after a delay (the nth start's, else the last), as an engine does when it has recovered. */
function fakeServer(delaysMs: number[]) {
  const spawned: EngineProcess[] = [];
  const launch = async (track: (proc: EngineProcess) => void) => {
    const delayMs = delaysMs[Math.min(spawned.length, delaysMs.length - 1)]!;
    const proc = spawnEngine(process.execPath, ['-e', `setTimeout(() => console.log('ready'), ${delayMs}); setInterval(() => {}, 1000);`]);
    spawned.push(proc);
    track(proc);
    await waitUntil(async () => proc.child.exitCode !== null || proc.child.signalCode !== null || proc.log().includes('ready'), 120_000, () => 'not ready');
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error('exited at start');
    return proc;
  };
  const alive = () => spawned.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  return { launch, spawned, alive };
}

describe('restartable engine', () => {
  it('starts one process when two restarts are asked for at once', async () => {
    const server = fakeServer([300]);
    const engine = restartable(server.launch, () => undefined);
    await engine.first;
    const gone = engine.exited();
    engine.kill('SIGKILL');
    await gone;
    expect(engine.pid()).toBeUndefined();
    await Promise.all([engine.restart(), engine.restart()]);
    expect(server.spawned).toHaveLength(2);
    expect(server.alive()).toHaveLength(1);
    expect(engine.pid()).toBe(server.alive()[0]!.child.pid);
    await engine.stop();
    expect(server.alive()).toHaveLength(0);
  });

  it('a kill while a restart is under way ends the starting process, and that restart gives up', async () => {
    // The second start is slow (a minute): the kill reaches it long before it answers.
    const server = fakeServer([300, 60_000, 300]);
    const engine = restartable(server.launch, () => undefined);
    await engine.first;
    const gone = engine.exited();
    engine.kill('SIGKILL');
    await gone;
    const restarting = engine.restart();
    await waitUntil(async () => server.spawned.length === 2, 10_000, () => 'the restart did not spawn');
    const starting = server.spawned[1]!;
    const ended = engine.exited();
    engine.kill('SIGKILL');
    await ended;
    expect(starting.child.signalCode).toBe('SIGKILL');
    await expect(restarting).rejects.toThrow();
    // It did not try again by itself: nothing runs until it is asked to start.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(server.spawned).toHaveLength(2);
    expect(server.alive()).toHaveLength(0);
    await engine.restart();
    expect(server.alive()).toHaveLength(1);
    await engine.stop();
  });
});

describe('engine process output', () => {
  it('remembers a marker the server printed even after many lines pushed it out of the tail', async () => {
    // Like a broker after a crash: "started", then a burst of partition and group lines at once.
    const script = `console.log('Kafka Server started'); for (let i = 0; i < 500; i++) console.log('Loaded partition ' + i); setInterval(() => {}, 1000);`;
    const proc = spawnEngine(process.execPath, ['-e', script], { markers: ['Kafka Server started', 'never printed'] });
    await waitUntil(async () => proc.log().includes('Loaded partition 499'), 30_000, () => 'the burst did not arrive');
    expect(proc.log()).not.toContain('Kafka Server started');
    expect(proc.printed('Kafka Server started')).toBe(true);
    expect(proc.printed('never printed')).toBe(false);
    await proc.stop('SIGKILL');
  });
});
