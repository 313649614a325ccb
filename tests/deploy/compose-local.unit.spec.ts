/**
 * docker-compose.local-images.yml on top of docker-compose.yml, as `npm run compose:smoke` hands it to
 * podman-compose (issue 27): the host's network, loopback addresses, a port of its own for each
 * process, and nothing else of the compose file changed. The smoke run itself starts it for real.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { interpolate as composeInterpolate, interpolateAll, mergeCompose, mergeComposeFiles, startOrder } from '../../scripts/compose-smoke/compose-files.js';
import { readRepoFile } from './adr.js';

interface Service {
  image?: string;
  build?: { args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  network_mode?: string;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, unknown>;
}
type Compose = { services: Record<string, Service> };

const base = parse(readRepoFile('docker-compose.yml'), { merge: true }) as Compose;
const merged = mergeComposeFiles([readRepoFile('docker-compose.yml'), readRepoFile('docker-compose.local-images.yml')]) as unknown as Compose;
const names = Object.keys(base.services);
const baret = names.filter((n) => base.services[n]!.build !== undefined);
/** A value as Compose interpolates it with no variable set: defaults taken, required ones filled in. */
const interpolate = (v: string) => v.replace(/\$\{(\w+)(?::?-([^}]*))?(?::?\?[^}]*)?\}/g, (_, name: string, fallback?: string) => fallback ?? `<${name}>`);

describe('docker-compose.local-images.yml (compose:smoke with podman)', () => {
  it('overrides only services of docker-compose.yml, and every one of them', () => {
    expect(Object.keys(merged.services).sort()).toEqual([...names].sort());
    const override = parse(readRepoFile('docker-compose.local-images.yml'), { merge: true }) as Compose;
    expect(Object.keys(override.services).sort()).toEqual([...names].sort());
  });

  it('runs every container on the host network, and no address names a service of the compose network', () => {
    const hostNames = new RegExp(`(^|//|@)(${names.join('|')}):\\d`);
    for (const [name, s] of Object.entries(merged.services)) {
      expect(s.network_mode, name).toBe('host');
      for (const [k, v] of Object.entries(s.environment ?? {})) expect(interpolate(String(v)), `${name} ${k}`).not.toMatch(hostNames);
      for (const arg of s.command ?? []) expect(arg, `${name} command`).not.toMatch(/^:\d/);
    }
  });

  it('keeps each Baret process\'s variables, secrets still required', () => {
    for (const n of baret) {
      expect(Object.keys(merged.services[n]!.environment ?? {}).sort(), n).toEqual(Object.keys(base.services[n]!.environment ?? {}).sort());
      for (const k of ['JWT_SECRET', 'SERVICE_SECRET', 'S3_SECRET_KEY'].filter((k) => k in (merged.services[n]!.environment ?? {}))) {
        expect(merged.services[n]!.environment![k], `${n} ${k}`).toMatch(/^\$\{[A-Z0-9_]+:\?[^}]+\}$/);
      }
      expect(merged.services[n]!.environment!.POSTGRES_URL ?? '${POSTGRES_PASSWORD:?x}', n).toMatch(/\$\{POSTGRES_PASSWORD:\?[^}]+\}/);
      expect(merged.services[n]!.command, n).toEqual([n]);
    }
  });

  it('gives every process a port of its own, and each URL points at the port of the service it names', () => {
    const port = (n: string) => Number(interpolate(merged.services[n]!.environment!.PORT!));
    const ports = baret.map(port);
    expect(new Set(ports).size).toBe(baret.length);
    for (const n of baret) {
      for (const [k, v] of Object.entries(merged.services[n]!.environment!).filter(([k]) => k.endsWith('_URL') && baret.includes(k.slice(0, -4).toLowerCase()))) {
        expect(interpolate(v), `${n} ${k}`).toBe(`http://127.0.0.1:${port(k.slice(0, -4).toLowerCase())}`);
      }
    }
    const env = merged.services.job!.environment!;
    const kafka = merged.services.kafka as Service & { environment: Record<string, string> };
    expect(interpolate(env.KAFKA_BROKERS!)).toBe(interpolate(kafka.environment.KAFKA_ADVERTISED_LISTENERS!).replace('PLAINTEXT://', ''));
    expect(interpolate(env.S3_ENDPOINT!)).toBe(`http://${interpolate(merged.services.minio!.command![3]!)}`);
    expect(interpolate(env.MONGODB_URL!)).toBe(`mongodb://${interpolate(merged.services.mongodb!.command![1]!)}`);
    expect(interpolate(env.POSTGRES_URL!)).toMatch(new RegExp(`@127\\.0\\.0\\.1:${interpolate(merged.services.postgres!.environment!.PGPORT!)}/baret$`));
    expect(new Set([...ports, 5432, 9092, 9093, 27017, 9000, 9001]).size).toBe(baret.length + 6);
  });

  it('runs the engines from local images of scripts/compose-smoke/Containerfile and builds Baret on the local Node.js image', () => {
    const targets = [...readRepoFile('scripts/compose-smoke/Containerfile').matchAll(/^FROM \S+ AS (\w+)$/gm)].map((m) => m[1]);
    for (const n of names.filter((n) => !baret.includes(n))) {
      const image = interpolate(merged.services[n]!.image!);
      expect(image, n).toMatch(/^localhost\/baret-smoke-(\w+):latest$/);
      expect(targets, n).toContain(/^localhost\/baret-smoke-(\w+)/.exec(image)![1]);
    }
    for (const n of baret) {
      expect(merged.services[n]!.image, n).toBe(base.services[n]!.image);
      expect(Object.values(merged.services[n]!.build!.args ?? {}).map(interpolate), n).toEqual(['localhost/baret-smoke-node:latest', 'localhost/baret-smoke-node:latest']);
    }
    expect(targets).toContain('node');
  });

  it('replaces command and healthcheck.test as Compose does (podman-compose 1.0 would append them), and starts in dependency order', () => {
    expect(merged.services.minio!.command).toEqual(['server', '/data', '--address', '127.0.0.1:${BARET_LOCAL_MINIO_PORT:-9000}', '--console-address', '127.0.0.1:${BARET_LOCAL_MINIO_CONSOLE_PORT:-9001}']);
    expect(merged.services.kafka!.healthcheck!.test![0]).toBe('CMD');
    expect(merged.services.kafka!.healthcheck!.test!.filter((a) => a === 'CMD' || a === 'CMD-SHELL')).toHaveLength(1);
    // the merge itself: sequences other than those are joined, mappings merged key by key
    expect(mergeCompose({ command: ['a'], volumes: ['v:/x'], environment: { A: '1', B: '2' } }, { command: ['b'], volumes: ['w:/y'], environment: { B: '3' } })).toEqual({
      command: ['b'],
      volumes: ['v:/x', 'w:/y'],
      environment: { A: '1', B: '3' },
    });
    expect(startOrder(merged.services as never)).toEqual([['kafka', 'postgres', 'mongodb', 'minio'], ['identity', 'quota', 'job', 'analysis', 'notification'], ['gateway']]);
    expect(() => startOrder({ a: { depends_on: ['b'] }, b: { depends_on: ['a'] } })).toThrow(/cycle/);
  });

  it('interpolates as Compose does: defaults, required variables, $$', () => {
    expect(composeInterpolate('a${X:-d}b', {})).toBe('adb');
    expect(composeInterpolate('${X:-d}', { X: '' })).toBe('d');
    expect(composeInterpolate('${X-d}', { X: '' })).toBe('');
    expect(composeInterpolate('${X}/$X', { X: 'v' })).toBe('v/v');
    expect(composeInterpolate('$${X}', { X: 'v' })).toBe('${X}');
    expect(() => composeInterpolate('${X:?set X in .env}', {})).toThrow('X: set X in .env');
    expect(() => composeInterpolate('${X:?set X}', { X: '' })).toThrow(/set X/);
    // the whole merged file with the secrets given: no variable left, the ports' defaults taken
    const env = { JWT_SECRET: 'j', SERVICE_SECRET: 's', S3_SECRET_KEY: 'k', POSTGRES_PASSWORD: 'p' };
    const done = interpolateAll(merged, env);
    expect(JSON.stringify(done)).not.toMatch(/\$\{/);
    expect(done.services.job!.environment!.POSTGRES_URL).toBe('postgres://baret:p@127.0.0.1:5432/baret');
    expect(() => interpolateAll(merged, { ...env, POSTGRES_PASSWORD: undefined })).toThrow(/POSTGRES_PASSWORD/);
  });
});
