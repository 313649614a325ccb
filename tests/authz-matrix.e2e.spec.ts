/**
 * The authorization matrix on the embedded run (issue 37): every operation of `/openapi.json` and
 * the routes outside it, as every kind of principal with other principals' ids (tests/helpers/authMatrix.ts).
 * Fails on a 2xx where the matrix says 401/403/404, on a route without its row, and on any 5xx.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './helpers/app.js';
import { buildWorld, callVerbatim, MATRIX, operationsOf, PRINCIPALS, pushTakeover, rowName, walk, type Caller, type Failure, type World, webAppFolder } from './helpers/authMatrix.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let app: TestApp;
let world: World;
let web: ReturnType<typeof webAppFolder> | undefined;
let socket: string;
let remote = 0;
// Each request from its own address, as attackers spread over many would: per-address limits do not mask an answer.
const call: Caller = async ({ method, url, token, payload, headers, verbatim }) => {
  if (verbatim) return callVerbatim(socket, { method, url, token, payload, headers });
  const n = ++remote;
  const res = await app.request({ method: method as 'GET', url, token, payload, headers, remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` });
  return { status: res.statusCode, body: res.body, headers: res.headers };
};

beforeAll(async () => {
  fx = await videoFixtures();
  const video = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
  // With a web app, so a path that lands on its page (the fallback for the app's routes) is seen.
  web = webAppFolder();
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { background: false, webDir: web.dir });
  socket = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const admin = { ...(await app.signUp('admin@baret.test')), email: 'admin@baret.test' };
  world = await buildWorld({ call, signUp: (email) => app.signUp(email), admin, jwtSecret: TEST_JWT_SECRET, video });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
  web?.remove();
});

const report = (failures: Failure[]) => failures.map((f) => `${f.row} as ${f.principal} (${f.url}): expected ${f.expected}, got ${f.status} ${f.body}`).join('\n');

describe('the authorization matrix (embedded)', () => {
  it('has one row for every operation of /openapi.json, and no row for a route that is gone', async () => {
    const doc = (await app.request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const operations = operationsOf(doc);
    const rows = new Set(MATRIX.filter((r) => !r.extra).map(rowName));
    expect(operations.filter((op) => !rows.has(op)), 'operations without a row in tests/helpers/authMatrix.ts').toEqual([]);
    expect([...rows].filter((r) => !operations.includes(r)), 'rows for operations /openapi.json no longer has').toEqual([]);
    console.log(`authorization matrix: ${operations.length} OpenAPI operations + ${MATRIX.filter((r) => r.extra).length} routes outside it, × ${PRINCIPALS.length} principals`);
  });

  it('answers every route as the matrix says, for every principal, with no 5xx', async () => {
    const { failures, requests } = await walk(MATRIX, world, call);
    const push = await pushTakeover(world, call, async (endpoint) => {
      const id = createHash('sha256').update(endpoint).digest('hex').slice(0, 40);
      return (await app.notification.cols.pushSubscriptions.get(id))?.user_id ?? null;
    });
    if (push) failures.push(push);
    console.log(`authorization matrix: ${requests} requests over ${MATRIX.length} routes`);
    expect(report(failures)).toBe('');
  }, 170_000);
});
