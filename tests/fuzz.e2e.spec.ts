/**
 * Fuzzes every operation of /openapi.json with schema-violating and boundary inputs (fast-check):
 * anonymous, as a user (JWT and API key) and as an admin. Nothing may answer 5xx, nothing may hang,
 * and every 4xx of the API is problem+json. Bounded in time: FUZZ_SECONDS (default 60) in all,
 * FUZZ_RUNS (default 400) inputs per operation and caller; FUZZ_SEED replays a run.
 *   FUZZ_SECONDS=600 FUZZ_RUNS=500 npx vitest run tests/fuzz.e2e.spec.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 60);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUEST_TIMEOUT_MS = 10_000;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Record<string, unknown>;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  security?: unknown[];
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let app: TestApp;
let callers: Record<string, Record<string, string>>;
const statuses = new Map<number, number>();
const failures: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'fuzz-admin@example.com' }, { background: false, realClock: true });
  const user = await app.signUp('fuzz-user@example.com');
  const admin = await app.signUp('fuzz-admin@example.com');
  const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: user.token, payload: { name: 'fuzz' } })).json() as { token: string };
  callers = {
    anonymous: {},
    user: { authorization: `Bearer ${user.token}` },
    apiKey: { authorization: `Bearer ${key.token}` },
    admin: { authorization: `Bearer ${admin.token}` },
    forged: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
  };
}, 60_000);
afterAll(async () => {
  await app.close();
});

/** Values that break parsers: boundaries, non-finite numbers, odd text, traversal, control characters. */
const nasty = fc.oneof(
  fc.constantFrom('', '0', '-1', '1', '2147483648', '9007199254740993', '1e999', '-1e999', 'Infinity', '-Infinity', 'NaN', '1.5', '0x10', ' 1', 'true', 'null', '[]', '{}'),
  fc.constantFrom('..', '../../etc/passwd', '%2e%2e%2f', '%00', 'a%0Ab', '\u202Egnp.mp4', '💥', 'ş'.repeat(300), 'a'.repeat(5000), '<script>', "' OR 1=1 --"),
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
);

/** A JSON value that may or may not fit the schema: its fields with wrong types, missing or extra ones. */
function bodyFor(schema: Record<string, unknown> | undefined): fc.Arbitrary<unknown> {
  const props = (schema?.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(props);
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), nasty, fc.constant(null), fc.double(), fc.integer(), fc.boolean(), fc.constant('x'.repeat(3000)));
  const shaped = fc.record(Object.fromEntries(names.map((n) => [n, anyValue])), { requiredKeys: [] });
  const extra = fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 3 });
  const deep = fc.letrec((tie) => ({ node: fc.oneof({ depthSize: 'small' }, fc.constant(1), fc.array(tie('node'), { maxLength: 2 })) })).node;
  return fc.oneof(shaped, fc.tuple(shaped, extra).map(([a, b]) => ({ ...b, ...a })), anyValue, deep, fc.constant(undefined));
}

function multipartBody(): fc.Arbitrary<{ payload: Buffer; headers: Record<string, string> }> {
  const boundary = 'FuzzBoundary';
  const part = fc.oneof(
    fc.tuple(nasty, nasty).map(([name, value]) => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`),
    fc.tuple(nasty, nasty).map(([value, filename]) => `Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: video/mp4\r\n\r\n${value}`),
    nasty.map((p) => `Content-Disposition: form-data; name="payload"\r\n\r\n{"upload_id":"${p}","target_composites":${p}}`),
    nasty.map((p) => `Content-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(p)}\r\n\r\n${'x'.repeat(70_000)}`),
  );
  return fc.oneof(
    fc.array(part, { maxLength: 12 }).map((parts) => ({
      payload: Buffer.from(parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + `--${boundary}--\r\n`),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    })),
    nasty.map((junk) => ({ payload: Buffer.from(junk), headers: { 'content-type': 'multipart/form-data' } })),
    nasty.map((junk) => ({ payload: Buffer.from(`--${boundary}\r\n${junk}`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })),
  );
}

async function send(options: Parameters<TestApp['request']>[0]): Promise<{ status: number; type: string } | 'hang'> {
  let timer!: NodeJS.Timeout;
  const hang = new Promise<'hang'>((r) => (timer = setTimeout(() => r('hang'), REQUEST_TIMEOUT_MS)));
  try {
    const res = await Promise.race([app.request(options), hang]);
    return res === 'hang' ? res : { status: res.statusCode, type: String(res.headers['content-type'] ?? '') };
  } finally {
    clearTimeout(timer);
  }
}

describe('fuzz of every operation in /openapi.json', () => {
  it('answers every schema-violating and boundary input without a 5xx or a hang', async () => {
    const doc = (await app.request({ method: 'GET', url: '/openapi.json' })).json() as Doc;
    const deadline = Date.now() + SECONDS * 1000;
    let operations = 0;
    let requests = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        operations++;
        const params = op.parameters ?? [];
        const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
        const queryParams = params.filter((p) => p.in === 'query').map((p) => p.name);
        const content = op.requestBody?.content ?? {};
        const isMultipart = 'multipart/form-data' in content;
        const jsonSchema = content['application/json']?.schema;
        const input = fc.record({
          caller: fc.constantFrom(...Object.keys(callers)),
          path: fc.tuple(...pathParams.map(() => nasty)).map((values) => values),
          query: fc.dictionary(fc.constantFrom(...queryParams, 'limit', 'offset', 'q', '__proto__'), fc.oneof(nasty, fc.array(nasty, { maxLength: 3 })), { maxKeys: 4 }),
          body: isMultipart ? multipartBody() : bodyFor(jsonSchema),
          lang: fc.constantFrom('tr', 'en', 'xx', '*', 'en;q=abc', ''),
          contentType: fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded'),
        });
        await fc.assert(
          fc.asyncProperty(input, async (i) => {
            if (Date.now() > deadline) return;
            let url = path;
            pathParams.forEach((name, k) => (url = url.replace(`{${name}}`, encodeURIComponent(String(i.path[k])))));
            const qs = new URLSearchParams();
            for (const [k, v] of Object.entries(i.query)) for (const one of ([] as string[]).concat(v)) qs.append(k, one);
            const full = qs.size ? `${url}?${qs.toString()}` : url;
            const headers: Record<string, string> = { ...callers[i.caller], 'accept-language': i.lang };
            let payload: string | Buffer | undefined;
            if (isMultipart) {
              const m = i.body as { payload: Buffer; headers: Record<string, string> };
              payload = m.payload;
              Object.assign(headers, m.headers);
            } else if (i.body !== undefined && method !== 'get' && method !== 'head') {
              payload = JSON.stringify(i.body);
              headers['content-type'] = i.contentType;
            }
            if (path.startsWith('/uploads')) headers['tus-resumable'] = '1.0.0';
            requests++;
            const res = await send({ method: method.toUpperCase() as 'GET', url: full, headers, payload });
            const label = `${method.toUpperCase()} ${full.slice(0, 200)} as ${i.caller} ${payload ? `body ${String(payload).slice(0, 200)}` : ''}`;
            if (res === 'hang') {
              failures.push(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${label}`);
              return false;
            }
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500) failures.push(`${res.status}: ${label}`);
            const isApiProblem = !path.startsWith('/uploads') && res.status >= 400;
            if (isApiProblem && !res.type.includes('application/problem+json')) failures.push(`${res.status} without problem+json (${res.type}): ${label}`);
            return res.status < 500;
          }),
          { numRuns: RUNS, seed: SEED + operations, endOnFailure: true },
        ).catch(() => undefined); // failures are collected above, with their inputs
      }
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, c]) => `${s}×${c}`).join(' ');
    console.log(`fuzz: ${operations} operations, ${requests} requests, seed ${SEED}: ${histogram}`);
    expect(operations).toBeGreaterThan(20);
    if (failures.length) console.log(failures.join("\n"));
    expect(failures).toEqual([]);
  }, (SECONDS + 120) * 1000);
});
