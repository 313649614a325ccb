import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, restartable, spawnEngine, waitUntil, type EngineOptions, type EngineProcess, type RestartableEngine } from './common.js';
import { releasePort, reservePort } from './ports.js';

/** What a broker prints once it serves (3.9 and 4 say it differently). */
const STARTED = ['Kafka Server started', 'started (kafka.server.KafkaRaftServer)'];

/** The broker versions scripts/engines/install-kafka.sh fetches. */
export const KAFKA_VERSIONS = { '3.9': '3.9.1', '4': '4.1.1' } as const;
export type KafkaLine = keyof typeof KAFKA_VERSIONS;

/** The folder of a Kafka version's jars, or null when it is not installed. */
export function kafkaLibs(line: KafkaLine): string | null {
  const libs = join(enginesDir(), `kafka-${KAFKA_VERSIONS[line]}`, 'libs');
  return existsSync(libs) ? libs : null;
}

/**
 * A throw-away single-node Kafka (KRaft: broker and controller in one JVM) on free loopback ports,
 * its log in a fresh temp folder (removed by stop). Consumer sessions may be as short as 1 s, so
 * tests of a crashed consumer do not wait long.
 */
export async function startKafka(line: KafkaLine, options: EngineOptions = {}): Promise<RunningKafka> {
  // The ports are reserved (see ports.ts), but a process outside that scheme may still bind one
  // before the broker does, and the broker shuts down: try again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startKafkaOnce(line, options);
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

export interface RunningKafka extends RestartableEngine {
  brokers: string[];
  version: string;
}

async function startKafkaOnce(line: KafkaLine, options: EngineOptions): Promise<RunningKafka> {
  const libs = kafkaLibs(line);
  if (!libs) throw new Error(`Kafka ${KAFKA_VERSIONS[line]} is not installed: run bash scripts/bootstrap.sh --test`);
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), `baret-kafka-${line}-`));
  mkdirSync(dir, { recursive: true });
  // Both listeners on reserved ports (below the ephemeral range, locked across processes): a broker
  // killed with SIGKILL binds them again when it restarts, whatever else runs on the machine.
  const [port, controller] = [await reservePort(), await reservePort()];
  const release = () => [port, controller].forEach(releasePort);
  const props = join(dir, 'server.properties');
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controller}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      `log.dirs=${join(dir, 'log')}`,
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=3',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'group.min.session.timeout.ms=1000',
      'auto.create.topics.enable=false',
    ].join('\n'),
  );
  const java = ['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', `${libs}/*`];
  // The log folder is formatted once; a kept one (dataDir) is started as it is, with its cluster id.
  if (!existsSync(join(dir, 'log', 'meta.properties'))) {
    try {
      const clusterId = execFileSync('java', [...java, 'kafka.tools.StorageTool', 'random-uuid']).toString().trim().split('\n').pop()!;
      execFileSync('java', [...java, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props, '--ignore-formatted'], { stdio: 'pipe' });
    } catch (e) {
      release();
      throw e;
    }
  }
  const launch = async (spawned: (proc: EngineProcess) => void) => {
    const proc = spawnEngine('java', [...java, 'kafka.Kafka', props], { markers: STARTED });
    spawned(proc);
    await waitUntil(
      () =>
        new Promise<boolean>((resolve) => {
          if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve(true); // gave up (a port taken): said below, at once
          if (!STARTED.some((marker) => proc.printed(marker))) return resolve(false);
          const socket = createConnection(port, '127.0.0.1', () => (socket.end(), resolve(true)));
          socket.on('error', () => resolve(false));
        }),
      // A broker started again after a crash recovers its logs first; on a busy 2-core machine (an
      // analysis running beside it) that has taken minutes. Killing it half-way only starts over.
      240_000,
      () => `Kafka ${KAFKA_VERSIONS[line]} did not start on port ${port}:\n${proc.log()}`,
    ).catch(async (e: unknown) => {
      await proc.stop('SIGKILL');
      throw e;
    });
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`Kafka ${KAFKA_VERSIONS[line]} exited at start on port ${port}:\n${proc.log()}`);
    return proc;
  };
  const engine = restartable(launch, () => {
    release();
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
  });
  await engine.first.catch((e: unknown) => {
    release();
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  return { brokers: [`127.0.0.1:${port}`], version: KAFKA_VERSIONS[line], pid: engine.pid, exited: engine.exited, kill: engine.kill, restart: engine.restart, stop: engine.stop };
}
