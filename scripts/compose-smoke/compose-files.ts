/** The compose files as Compose reads them, for podman-compose 1.0 (scripts/compose-smoke.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

type Doc = Record<string, unknown>;
const isMap = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Compose's merge of an override file: mappings key by key; `command`, `entrypoint` and
 * `healthcheck.test` replaced; other sequences joined. podman-compose 1.0 (Debian 12) joins every
 * sequence (an override's command is appended to the base's), so the script hands it the merged file.
 */
export function mergeCompose(base: unknown, over: unknown, path: string[] = []): unknown {
  if (isMap(base) && isMap(over)) {
    const out: Doc = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = k in base ? mergeCompose(base[k], v, [...path, k]) : v;
    return out;
  }
  if (Array.isArray(base) && Array.isArray(over)) {
    const key = path.at(-1);
    if (key === 'command' || key === 'entrypoint' || (key === 'test' && path.at(-2) === 'healthcheck')) return over;
    return [...base, ...over.filter((x) => !base.includes(x))];
  }
  return over;
}

export type ComposeServices = Record<string, { depends_on?: Record<string, unknown> | string[] }>;

/** The compose files of `repo` merged (x- keys dropped), written to `dir`. */
export function mergedComposeFile(repo: string, files: string[], dir: string): { file: string; services: ComposeServices } {
  const compose = mergeComposeFiles(files.map((f) => readFileSync(join(repo, f), 'utf8')));
  // JSON, which is YAML too: every string stays quoted (PyYAML reads an unquoted `off` as false).
  const file = join(dir, 'docker-compose.merged.json');
  writeFileSync(file, `${JSON.stringify(compose, null, 2)}\n`);
  return { file, services: compose.services as ComposeServices };
}

/** Compose files' texts (YAML merge keys resolved) merged in order, without their x- keys. */
export function mergeComposeFiles(texts: string[]): Doc {
  const docs = texts.map((t) => parse(t, { merge: true }) as unknown);
  const merged = docs.slice(1).reduce((a, b) => mergeCompose(a, b), docs[0]) as Doc;
  return Object.fromEntries(Object.entries(merged).filter(([k]) => !k.startsWith('x-')));
}
/** The services in start order: each group after every service it depends on. */
export function startOrder(services: ComposeServices): string[][] {
  const deps = (n: string) => {
    const d = services[n]!.depends_on;
    return Array.isArray(d) ? d : Object.keys(d ?? {});
  };
  const done = new Set<string>();
  const groups: string[][] = [];
  while (done.size < Object.keys(services).length) {
    const group = Object.keys(services).filter((n) => !done.has(n) && deps(n).every((d) => done.has(d)));
    if (group.length === 0) throw new Error('depends_on has a cycle');
    group.forEach((n) => done.add(n));
    groups.push(group);
  }
  return groups;
}

