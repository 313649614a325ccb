/**
 * The authorization matrix through the gateway of the distributed run (issue 37): every service
 * its own process over PostgreSQL, Kafka, FerretDB and MinIO. One pass of the rows of
 * tests/helpers/authMatrix.ts for every route the gateway forwards (its /openapi.json and the
 * routes outside it), as every kind of principal: no 2xx where the matrix says 401/403/404, no 5xx.
 */
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld, callVerbatim, MATRIX, operationsOf, rowName, walk, type Caller, type Failure, type World, webAppFolder } from './helpers/authMatrix.js';
import { distributedEngines } from './helpers/distributed.js';
import { startOrgStack, type OrgStack } from './helpers/orgStack.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('authorization matrix, distributed', ok, engine));

describe.skipIf(!installed)('the authorization matrix through the distributed gateway', () => {
  let baret: OrgStack;
  let world: World;
  let web: ReturnType<typeof webAppFolder> | undefined;
  const call: Caller = async ({ method, url, token, payload, headers, verbatim }) => {
    if (verbatim) return callVerbatim(baret.gateway, { method, url, token, payload, headers });
    const res = await fetch(`${baret.gateway}${url}`, {
      method,
      redirect: 'manual',
      headers: { 'accept-language': 'en', ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(payload === undefined ? {} : { body: payload }),
    });
    return { status: res.status, body: method === 'HEAD' ? '' : await res.text(), headers: Object.fromEntries(res.headers.entries()) };
  };

  beforeAll(async () => {
    // The gateway serves a web app, so a path that lands on its page (the fallback for the app's routes) is seen.
    web = webAppFolder();
    baret = await startOrgStack({ env: { WEB_DIST_DIR: web.dir } });
    world = await buildWorld({ call, signUp: baret.signUp, admin: baret.admin, jwtSecret: baret.stack.env.JWT_SECRET!, video: baret.video });
  }, 300_000);
  afterAll(async () => {
    await baret?.close();
    web?.remove();
  });

  it("walks every route the gateway forwards as every principal, with no 5xx", async () => {
    const res = await fetch(`${baret.gateway}/openapi.json`);
    const operations = operationsOf((await res.json()) as { paths: Record<string, Record<string, unknown>> });
    const rows = new Set(MATRIX.filter((r) => !r.extra).map(rowName));
    expect(operations.filter((op) => !rows.has(op)), 'operations of the gateway without a row in tests/helpers/authMatrix.ts').toEqual([]);
    const forwarded = MATRIX.filter((r) => r.extra || operations.includes(rowName(r)));
    const { failures, requests } = await walk(forwarded, world, call);
    console.log(`authorization matrix (distributed): ${forwarded.length} routes (${operations.length} OpenAPI operations), ${requests} requests`);
    const report = (list: Failure[]) => list.map((f) => `${f.row} as ${f.principal} (${f.url}): expected ${f.expected}, got ${f.status} ${f.body}`).join('\n');
    expect(report(failures)).toBe('');
  }, 420_000);
});
