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
 * The environment variables a Baret process may be given: the keys of ConfigSchema, plus those ADR
 * 0011 introduces that config.ts may not validate yet (SERVICE_SECRET, the URL of each service).
 */
export function knownVariables(): Set<string> {
  const adr = readRepoFile('docs/adr/0011-distributed-services.md');
  const fromAdr = [...adr.matchAll(/`(SERVICE_SECRET|[A-Z]+_URL)`/g)].map((m) => m[1]!);
  const urls = adrServices().map((s) => urlVariableOf(s.name));
  return new Set([...Object.keys(ConfigSchema.properties), ...fromAdr, ...urls]);
}
