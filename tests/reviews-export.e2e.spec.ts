/**
 * The export of an organisation's reviewed findings as a labelled set (issue 53 point 5, ADR 0033):
 * a manager reviews a crew member's job and downloads the set; its images are the stored (covered)
 * crops, its labels the reviewed verdicts in the training set's YOLO classes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import { orgQuotaAccount } from '@baret/platform';
import { PRESETS } from '@baret/quota';
import { HAT, RESULT, VEST } from '../services/job/test/fixtures/reviewResult.js';
import { eventually, recordFinishedJob, startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let n = 0;
const person = (name: string, fullName?: string) => {
  const email = `${name}${++n}@example.com`;
  return app.signUp(email, undefined, fullName).then((u) => ({ ...u, email }));
};
const req = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
  app.request({ method, url, token, payload: payload as Record<string, unknown>, headers: { 'accept-language': 'en' } });

/** Worker 1 without a hard hat, worker 2 without a vest (each a violation with a crop); worker 3 could not be told. */
const RESULT2 = {
  ...RESULT,
  missing_groups: [HAT.split(','), VEST.split(',')],
  workers: RESULT.workers.map((w) => (w.worker === 2 ? { ...w, items: { ...w.items, [VEST]: { verdict: 'missing', frames_worn: 0, frames_without: 4, confidence: 0.8 } } } : w)),
  violations: [
    { ...RESULT.violations[0]!, box: { x: 0.1, y: 0.2, w: 0.2, h: 0.6 } },
    { ...RESULT.violations[0]!, group: VEST.split(','), worker: 2, reason: null, box: { x: 0.5, y: 0.1, w: 0.25, h: 0.8 } },
  ],
};

const finishedJob = (userId: string) => recordFinishedJob(app, userId, RESULT2);
const jpeg = (width: number, height: number, r: number) => sharp({ create: { width, height, channels: 3, background: { r, g: 80, b: 80 } } }).jpeg().toBuffer();

let team: { manager: Awaited<ReturnType<typeof person>>; alice: Awaited<ReturnType<typeof person>>; other: Awaited<ReturnType<typeof person>>; orgId: string };

beforeAll(async () => {
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'admin@baret.test' }, { realClock: true });
  const manager = await person('manager', 'Mehmet Müdür');
  const alice = await person('alice', 'Alice Ekip');
  const org = (await req('POST', '/orgs', manager.token, { name: 'Boğaziçi Elektrik' })).json() as { id: string };
  const inv = (await req('POST', `/orgs/${org.id}/invites`, manager.token, { email: alice.email, role: 'member' })).json() as { token: string };
  expect((await req('POST', `/invites/${inv.token}/accept`, alice.token)).statusCode).toBe(200);
  const { plan_name, daily_limit, monthly_limit, lifetime_limit } = PRESETS.enterprise;
  await app.quota.changeLimits(orgQuotaAccount(org.id), { plan_name, daily_limit, monthly_limit, lifetime_limit }, 'test');
  const other = await person('othermanager');
  expect((await req('POST', '/orgs', other.token, { name: 'Başka Elektrik' })).statusCode).toBe(201);
  team = { manager, alice, other, orgId: org.id };
}, 90_000);
afterAll(async () => {
  await app?.close();
});

describe('the reviewed findings as a labelled set', () => {
  it('exports the reviewed crops (never the unblurred copy) with the reviewed verdicts as YOLO labels, to the managers only, with an audit entry', async () => {
    const jobId = await finishedJob(team.alice.id);
    const unreviewed = await finishedJob(team.alice.id);
    // The covered crops as store evidence keeps them, and an unblurred copy that must stay out.
    const crops = [await jpeg(120, 480, 10), await jpeg(150, 480, 20)];
    for (const [i, c] of crops.entries()) {
      await app.infra.objects.put(`jobs/${jobId}/violations/${i}.jpg`, c);
      await app.infra.objects.put(`jobs/${jobId}/unblurred/violations/${i}.jpg`, await jpeg(120, 480, 200));
      await app.infra.objects.put(`jobs/${unreviewed}/violations/${i}.jpg`, c);
    }
    // Worker 1 has no hard hat (confirmed); worker 2 wears a vest after all (dismissed); worker 3 is missing a hard hat (added: no crop).
    for (const body of [
      { worker: 1, group: HAT, verdict: 'confirmed' },
      { worker: 2, group: VEST, verdict: 'worn' },
      { worker: 3, group: HAT, verdict: 'missing' },
    ]) {
      const res = await req('POST', `/jobs/${jobId}/reviews`, team.manager.token, body);
      expect(res.statusCode, res.body).toBe(200);
    }

    const url = `/orgs/${team.orgId}/reviews/export`;
    expect((await req('GET', url, team.alice.token)).statusCode).toBe(403);
    expect((await req('GET', url, team.other.token)).statusCode).toBe(404);
    const res = await req('GET', url, team.manager.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('application/zip');
    const files = unzipSync(new Uint8Array(res.rawPayload));
    const text = (name: string) => new TextDecoder().decode(files[name]);
    expect(Object.keys(files).sort()).toEqual(
      ['README.txt', 'classes.txt', 'data.yaml', `images/${jobId}-0.jpg`, `images/${jobId}-1.jpg`, `labels/${jobId}-0.txt`, `labels/${jobId}-1.txt`, 'sources.csv'].sort(),
    );
    // The stored, covered crops byte for byte.
    expect(Buffer.from(files[`images/${jobId}-0.jpg`]!).equals(crops[0]!)).toBe(true);
    expect(Buffer.from(files[`images/${jobId}-1.jpg`]!).equals(crops[1]!)).toBe(true);
    // One box each, the reviewed verdict's class: a bare head (2) high in the crop, a vest (1) lower down.
    const parse = (name: string) => text(name).trim().split('\n').map((l) => l.split(' ').map(Number));
    const [hat] = parse(`labels/${jobId}-0.txt`);
    const [vest] = parse(`labels/${jobId}-1.txt`);
    expect(hat![0]).toBe(2);
    expect(vest![0]).toBe(1);
    for (const line of [hat!, vest!]) {
      expect(line).toHaveLength(5);
      for (const v of line.slice(1)) expect(v).toBeGreaterThan(0);
      for (const v of line.slice(1)) expect(v).toBeLessThanOrEqual(1);
    }
    expect(hat![2]).toBeLessThan(0.35);
    expect(vest![2]).toBeGreaterThan(hat![2]!);
    expect(text('classes.txt')).toBe('helmet\nvest\nno_helmet\nno_vest\n');
    expect(text('data.yaml')).toContain('names: [helmet, vest, no_helmet, no_vest]');
    expect(text('data.yaml')).toContain(jobId);
    expect(text('data.yaml')).not.toContain(unreviewed);
    expect(text('README.txt')).toContain(jobId);
    expect(text('sources.csv').trim().split('\n').slice(1)).toEqual([
      `${jobId}-0.jpg,${jobId},0,1,"${HAT}",missing,missing,no_helmet`,
      `${jobId}-1.jpg,${jobId},1,2,"${VEST}",missing,worn,vest`,
    ]);

    const entries = await eventually(async () => {
      const r = await req('GET', `/orgs/${team.orgId}/audit?action=reviews.exported`, team.manager.token);
      expect(r.statusCode, r.body).toBe(200);
      const list = (r.json() as { entries: Array<{ actor_id: string; object_id: string; details: Record<string, string> }> }).entries;
      return list.length >= 1 ? list : undefined;
    }, 15_000);
    expect(entries[0]).toMatchObject({ actor_id: team.manager.id, object_id: team.orgId, details: { jobs: '1', images: '2' } });
  });
});
