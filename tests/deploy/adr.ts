import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../../services/platform/src/config.js';

/** The repository root. */
export const repoRoot = join(__dirname, '..', '..');

export const readRepoFile = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

/** One row of ADR 0011's table: a service, the services it calls at once and what it needs. */
export interface AdrService {
  name: string;
  /** The `*_URL` variables the row names (the services it calls). */
  urls: string[];
  /** The engines the row names: event store, MongoDB, Kafka, S3, SMTP, ffmpeg/ffprobe. */
  needs: string[];
}

/** The services of docs/adr/0011-distributed-services.md, read from its table (the contract). */
export function adrServices(): AdrService[] {
  const adr = readRepoFile('docs/adr/0011-distributed-services.md');
  const rows = adr.split('\n').filter((l) => /^\| [a-z]+ \|/.test(l) && !l.startsWith('| service |'));
  return rows.map((row) => {
    const cells = row.split('|').map((c) => c.trim());
    const name = cells[1]!;
    const needsCell = cells[4]!;
    // "`*_URL` of every service" (the gateway) means the URL of every other service.
    const urls = /\*_URL` of every service/.test(needsCell) ? ['*'] : [...needsCell.matchAll(/`([A-Z]+_URL)`/g)].map((m) => m[1]!);
    const needs = ['event store', 'MongoDB', 'Kafka', 'S3', 'SMTP', 'ffmpeg', 'ffprobe'].filter((n) => needsCell.includes(n));
    return { name, urls, needs };
  });
}

/** `IDENTITY_URL` for `identity`, and so on. */
export const urlVariableOf = (service: string): string => `${service.toUpperCase()}_URL`;

/**
 * Whether a Baret process may be given this environment variable: a key of ConfigSchema, one that
 * ADR 0011 introduces and config.ts may not validate yet (SERVICE_SECRET, the URL of each service),
 * or a standard OpenTelemetry variable (OTEL_*, read by the OpenTelemetry SDK, not by config.ts).
 */
export function isKnownVariable(name: string): boolean {
  const adr = readRepoFile('docs/adr/0011-distributed-services.md');
  const fromAdr = [...adr.matchAll(/`(SERVICE_SECRET|[A-Z]+_URL)`/g)].map((m) => m[1]!);
  const urls = adrServices().map((s) => urlVariableOf(s.name));
  return new Set([...Object.keys(ConfigSchema.properties), ...fromAdr, ...urls]).has(name) || /^OTEL_[A-Z_]+$/.test(name);
}

/** The variable that shows a process is connected to each engine of ADR 0011's "needs" column. */
const engineVariable: Record<string, string> = { 'event store': 'EVENT_STORE', MongoDB: 'MONGODB_URL', Kafka: 'KAFKA_BROKERS', S3: 'S3_ENDPOINT' };

/**
 * What is wrong with one service's environment against ADR 0011: the URL of exactly the services it
 * calls (each pointing where `urlOf` says that service is), and a connection to exactly the engines
 * it needs. Empty when it is right.
 */
export function wiringProblems(service: string, env: Record<string, string | undefined>, urlOf: (callee: string) => string): string[] {
  const rows = adrServices();
  const row = rows.find((r) => r.name === service);
  if (!row) return [`${service} is not a service of ADR 0011`];
  const names = rows.map((r) => r.name);
  const expected = row.urls[0] === '*' ? names.filter((n) => n !== service).map(urlVariableOf) : row.urls;
  const given = Object.keys(env).filter((k) => names.some((n) => urlVariableOf(n) === k));
  const problems: string[] = [];
  for (const v of expected) if (!given.includes(v)) problems.push(`${service} lacks ${v}`);
  for (const v of given) if (!expected.includes(v)) problems.push(`${service} has ${v}, but does not call that service`);
  for (const v of expected.filter((x) => given.includes(x))) {
    const callee = names.find((n) => urlVariableOf(n) === v)!;
    if (env[v] !== urlOf(callee)) problems.push(`${service} ${v}=${env[v]}, expected ${urlOf(callee)}`);
  }
  for (const [need, variable] of Object.entries(engineVariable)) {
    if (row.needs.includes(need) !== variable in env) problems.push(`${service} ${row.needs.includes(need) ? 'needs' : 'does not need'} ${need}, but ${variable} is ${variable in env ? 'set' : 'missing'}`);
  }
  return problems;
}
