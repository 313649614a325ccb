import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { adrServices, isKnownVariable, readRepoFile, wiringProblems } from './adr.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: unknown[];
  volumes?: string[];
  healthcheck?: { test?: unknown };
  depends_on?: Record<string, { condition?: string }>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const text = readRepoFile('docker-compose.yml');
/** The file as Compose reads it: YAML merge keys (`<<`) resolved. */
const compose = parse(text, { merge: true }) as ComposeFile;
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(readRepoFile('tests/deploy/schemas/compose-spec.json')) as object);

/** The services built from this repository's Dockerfile: the Baret processes. */
const baretServices = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
const engineServices = Object.entries(compose.services).filter(([, s]) => s.build === undefined);

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    const ok = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema refuses a misspelt key, so the check above can fail', () => {
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.gateway!.depend_on = broken.services.gateway!.depends_on;
    expect(validate(broken)).toBe(false);
  });

  it('runs exactly the services of ADR 0011, each with its own command, from the one image', () => {
    const adr = adrServices().map((s) => s.name);
    expect(adr).toEqual(['gateway', 'identity', 'quota', 'job', 'analysis', 'notification']);
    expect(baretServices.map(([name]) => name).sort()).toEqual([...adr].sort());
    for (const [name, s] of baretServices) {
      expect(s.command, name).toEqual([name]);
      expect(s.image, name).toBe(baretServices[0]![1].image);
    }
  });

  it('gives a Baret process only variables that config.ts validates or ADR 0011 defines', () => {
    for (const [name, s] of baretServices) {
      const unknown = Object.keys(s.environment ?? {}).filter((k) => !isKnownVariable(k));
      expect(unknown, name).toEqual([]);
      expect(s.environment?.BARET_MODE, name).toBe('distributed');
    }
  });

  it('gives each service the URLs of exactly the services it calls and the engines it needs (ADR 0011)', () => {
    for (const row of adrServices()) {
      const env = Object.fromEntries(Object.entries(compose.services[row.name]!.environment ?? {}).map(([k, v]) => [k, String(v)]));
      expect(wiringProblems(row.name, env, (callee) => `http://${callee}:8080`), row.name).toEqual([]);
    }
  });

  it('the wiring check can fail: a missing URL, an extra engine and a wrong address are reported', () => {
    const env = Object.fromEntries(Object.entries(compose.services.job!.environment ?? {}).map(([k, v]) => [k, String(v)]));
    delete env.QUOTA_URL;
    env.ANALYSIS_URL = 'http://elsewhere:8080';
    expect(wiringProblems('job', env, (callee) => `http://${callee}:8080`)).toEqual(['job lacks QUOTA_URL', 'job ANALYSIS_URL=http://elsewhere:8080, expected http://analysis:8080']);
    expect(wiringProblems('analysis', { ...env, EVENT_STORE: 'kurrentdb' }, (callee) => `http://${callee}:8080`)).toContain('analysis does not need event store, but EVENT_STORE is set');
  });

  it('publishes only the gateway, on 8080', () => {
    const published = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n]) => n)).toEqual(['gateway']);
    expect(compose.services.gateway!.ports).toEqual(['${BARET_PORT:-8080}:8080']);
  });

  it('health-checks every service and starts each after what it depends on is healthy', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect(s.healthcheck?.test, name).toBeDefined();
      for (const [dep, condition] of Object.entries(s.depends_on ?? {})) {
        expect(compose.services[dep], `${name} depends on ${dep}`).toBeDefined();
        expect(condition.condition, `${name} → ${dep}`).toBe('service_healthy');
      }
    }
    expect(Object.keys(compose.services.gateway!.depends_on ?? {}).sort()).toEqual(baretServices.map(([n]) => n).filter((n) => n !== 'gateway').sort());
  });

  it('runs Kafka (KRaft), PostgreSQL (the event store), MongoDB and MinIO from official images, each on a named volume of its own', () => {
    const images = Object.fromEntries(engineServices.map(([n, s]) => [n, s.image ?? '']));
    expect(images.kafka).toMatch(/^apache\/kafka:\d/);
    expect(images.postgres).toMatch(/^postgres:\d/);
    for (const [name, s] of baretServices.filter(([, s]) => s.environment?.EVENT_STORE !== undefined)) expect(s.environment?.EVENT_STORE, name).toBe('postgres');
    expect(images.kurrentdb).toBeUndefined();
    expect(images.mongodb).toMatch(/^mongo:7/);
    expect(images.minio).toMatch(/^minio\/minio:RELEASE\./);
    expect(compose.services.kafka!.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    const volumes = engineServices.flatMap(([, s]) => (s.volumes ?? []).map((v) => v.split(':')[0]!));
    expect(volumes).toHaveLength(engineServices.length);
    expect(new Set(volumes).size).toBe(engineServices.length);
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual([...volumes].sort());
  });

  it('keeps no secret in the file: every secret is taken from the environment, and required', () => {
    const secrets = ['JWT_SECRET', 'SERVICE_SECRET', 'S3_SECRET_KEY'];
    expect(String(compose.services.postgres!.environment?.POSTGRES_PASSWORD)).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    for (const [name, s] of baretServices) {
      for (const k of secrets.filter((k) => k in (s.environment ?? {}))) expect(String(s.environment![k]), `${name} ${k}`).toMatch(/^\$\{[A-Z0-9_]+:\?[^}]+\}$/);
    }
    expect(compose.services.minio!.environment?.MINIO_ROOT_PASSWORD).toMatch(/^\$\{S3_SECRET_KEY:\?/);
    // Only identity signs tokens; the gateway verifies them with identity's public keys (ADR 0019).
    expect(baretServices.filter(([, s]) => 'JWT_SECRET' in (s.environment ?? {})).map(([n]) => n)).toEqual(['identity']);
    expect(compose.services.postgres!.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    for (const [name, s] of baretServices.filter(([, s]) => s.environment?.POSTGRES_URL !== undefined)) {
      expect(String(s.environment!.POSTGRES_URL), name).toMatch(/^postgres:\/\/baret:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/baret$/);
    }
    expect(baretServices.every(([, s]) => 'SERVICE_SECRET' in (s.environment ?? {}))).toBe(true);
  });
});
