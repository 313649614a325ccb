import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '@baret/platform';

describe('configuration', () => {
  it('applies defaults and converts types', () => {
    const cfg = parseConfig({ PORT: '9090', TRUST_PROXY: 'true' });
    expect(cfg).toMatchObject({ PORT: 9090, TRUST_PROXY: true, BARET_MODE: 'embedded', BARET_DATA_DIR: './data', UPLOAD_MAX_BYTES: 2 * 1024 ** 3, LOG_LEVEL: 'info' });
  });

  it('lists every problem at once, readably', () => {
    let error: unknown;
    try {
      parseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', JWT_SECRET: 'short' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/LOG_LEVEL/);
    expect(problems).toMatch(/JWT_SECRET/);
    expect((error as ConfigError).message).toMatch(/^Invalid configuration:\n {2}- /);
  });

  it('refuses to start distributed without a JWT secret and the servers', () => {
    expect(() => parseConfig({ BARET_MODE: 'distributed' })).toThrow(/JWT_SECRET: required in distributed mode/);
    expect(() => parseConfig({ BARET_MODE: 'distributed' })).toThrow(/KAFKA_BROKERS: required/);
  });

  it('asks for the event store the operator chose: KurrentDB by default, or PostgreSQL', () => {
    const servers = { BARET_MODE: 'distributed', JWT_SECRET: 'x'.repeat(40), KAFKA_BROKERS: 'k:9092', MONGODB_URL: 'mongodb://m', S3_ENDPOINT: 'http://s3' };
    // PostgreSQL is the default event store (issue 27); KurrentDB is chosen by name.
    expect(() => parseConfig(servers)).toThrow(/POSTGRES_URL: required in distributed mode/);
    expect(parseConfig({ ...servers, POSTGRES_URL: 'postgres://p/baret' }).EVENT_STORE).toBe('postgres');
    expect(() => parseConfig({ ...servers, EVENT_STORE: 'kurrentdb' })).toThrow(/EVENTSTORE_URL: required in distributed mode/);
    expect(parseConfig({ ...servers, EVENT_STORE: 'kurrentdb', EVENTSTORE_URL: 'kurrentdb://k:2113' }).EVENT_STORE).toBe('kurrentdb');
    expect(() => parseConfig({ ...servers, EVENT_STORE: 'postgres' })).toThrow(/POSTGRES_URL: required in distributed mode/);
    expect(parseConfig({ ...servers, EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://p/baret' }).POSTGRES_URL).toBe('postgres://p/baret');
    expect(() => parseConfig({ ...servers, EVENT_STORE: 'mysql' })).toThrow(/EVENT_STORE/);
  });

  it('asks each service of the distributed run for what it needs, and only for that', () => {
    const problems = (service: Parameters<typeof parseConfig>[1], env: Record<string, string> = {}) => {
      try {
        parseConfig({ BARET_MODE: 'distributed', EVENT_STORE: 'postgres', ...env }, service);
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(problems('gateway')).toEqual(
      ['SERVICE_SECRET', 'IDENTITY_URL', 'QUOTA_URL', 'JOB_URL', 'ANALYSIS_URL', 'NOTIFICATION_URL'].map((k) => `${k}: required by the gateway service`),
    );
    // The analysis worker keeps no events and signs no tokens.
    expect(problems('analysis')).toEqual(
      ['SERVICE_SECRET', 'KAFKA_BROKERS', 'MONGODB_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'].map((k) => `${k}: required by the analysis service`),
    );
    expect(problems('job').join('\n')).toMatch(/POSTGRES_URL: required by the job service/);
    expect(problems('quota', { SERVICE_SECRET: 's'.repeat(32), KAFKA_BROKERS: 'k:9092', MONGODB_URL: 'mongodb://m', IDENTITY_URL: 'http://identity:8080', POSTGRES_URL: 'postgres://p' })).toEqual([]);
    expect(problems('quota', { SERVICE_SECRET: 'short' }).join('\n')).toMatch(/SERVICE_SECRET/);
    expect(problems('quota', { IDENTITY_URL: 'identity:8080' }).join('\n')).toMatch(/IDENTITY_URL/);
  });

  it('gives a service that holds no JWT secret a random one in memory, writing nothing', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'baret-cfg-')), 'never-created');
    const env = { BARET_MODE: 'distributed', BARET_DATA_DIR: dir, SERVICE_SECRET: 's'.repeat(32), KAFKA_BROKERS: 'k:9092', MONGODB_URL: 'mongodb://m', S3_ENDPOINT: 'http://s3', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' };
    const a = loadConfig(env, 'analysis');
    const b = loadConfig(env, 'analysis');
    expect(a.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(a.JWT_SECRET).not.toBe(b.JWT_SECRET);
    expect(existsSync(dir)).toBe(false);
  });

  it('generates the embedded JWT secret once, keeps it private in the data dir, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baret-cfg-'));
    const first = loadConfig({ BARET_DATA_DIR: dir });
    const second = loadConfig({ BARET_DATA_DIR: dir });
    expect(first.JWT_SECRET.length).toBeGreaterThanOrEqual(48);
    expect(second.JWT_SECRET).toBe(first.JWT_SECRET);
    expect(readFileSync(join(dir, 'jwt-secret'), 'utf8')).toBe(first.JWT_SECRET);
    expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });
});
