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


/**
 * Compose's interpolation of one value: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?message}` (an error when unset or empty), `$VAR`, and `$$` for a dollar sign.
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?)([-?])([^}]*))?\}|\$(\w+)/g, (whole, braced?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = (braced ?? bare)!;
    const v = env[name];
    const missing = v === undefined || (colon === ':' && v === '');
    if (op === '-' && missing) return arg ?? '';
    if (op === '?' && missing) throw new Error(`${name}: ${arg || 'required'}`);
    return v ?? '';
  });
}

/** Every string of a compose document interpolated (keys stay as they are). */
export function interpolateAll<T>(doc: T, env: Record<string, string | undefined>): T {
  if (typeof doc === 'string') return interpolate(doc, env) as T;
  if (Array.isArray(doc)) return doc.map((d: unknown) => interpolateAll(d, env)) as T;
  if (isMap(doc)) return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, interpolateAll(v, env)])) as T;
  return doc;
}
