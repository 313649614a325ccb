/**
 * Issue 27: concurrent commands on one quota must never make the read model skip an event. Twenty
 * submissions race against a limit of ten; exactly ten are accepted, and what `GET /auth/me` and the
 * admin table show is what the stored events say (the distributed twin is in
 * tests/distributed.e2e.spec.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { projectInline } from '@baret/platform';
import { quotasProjection, QUOTAS, type QuotaDoc } from '../services/quota/src/readModels/quotas.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { raceSubmissions, usedFromEvents } from './helpers/quotaRace.js';

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let video: Buffer;
let app: TestApp;
let admin: { token: string; id: string };

beforeAll(async () => {
  fx = await videoFixtures();
  video = readFileSync((await fx.photos('race.mp4', 4)).path);
  // The catch-up runners run too (they race the inline projections); the worker does not.
  app = await startTestApp({ BARET_ADMIN_EMAILS: 'boss@example.com' }, { realClock: true });
  admin = await app.signUp('boss@example.com');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await fx?.dispose();
});

type Quota = { lifetime_used: number; lifetime_limit: number | null; can_analyze: boolean };

describe('the quota read model under concurrent submissions (embedded)', () => {
  it('20 submissions against a limit of 10, four bursts: 10 accepted each time, and the quota shown is what the events say', async () => {
    for (let burst = 1; burst <= 4; burst++) {
      const user = await app.signUp(`crew${burst}@example.com`);
      const set = await app.request({ method: 'PATCH', url: `/admin/users/${user.id}/quota`, token: admin.token, payload: { plan_name: 'pro', daily_limit: null, monthly_limit: null, lifetime_limit: 10 } });
      expect(set.statusCode).toBe(200);
      const codes = await raceSubmissions(20, video, async (body) => (await app.request({ method: 'POST', url: '/analyze', token: user.token, ...body })).statusCode);
      expect(codes.filter((c) => c === 202)).toHaveLength(10);
      expect(codes.filter((c) => c === 403)).toHaveLength(10);

      const stored = usedFromEvents(await app.infra.eventStore.readStream(`quota-${user.id}`));
      expect(stored).toBe(10);
      const me = (await app.request({ method: 'GET', url: '/auth/me', token: user.token })).json() as { quota: Quota };
      expect(me.quota).toMatchObject({ lifetime_used: stored, lifetime_limit: 10, can_analyze: false });
      const rows = (await app.request({ method: 'GET', url: '/admin/users/quotas', token: admin.token })).json() as Array<{ user_id: string; quota: Quota }>;
      expect(rows.find((r) => r.user_id === user.id)?.quota).toMatchObject({ lifetime_used: stored, can_analyze: false });
    }
  }, 180_000);
});

describe('a quota projection given a stream\'s events out of order', () => {
  it('applies every event once, in stream order: a later revision arriving first does not make it skip the earlier one', async () => {
    const { eventStore, documents } = app.infra;
    const stream = 'quota-out-of-order';
    const at = new Date().toISOString();
    await eventStore.appendToStream(stream, [{ type: 'quota_limits_changed', data: { user_id: 'out-of-order', changes: { lifetime_limit: 10 }, by: 'test', at } }]);
    for (const job of ['a', 'b', 'c']) await eventStore.appendToStream(stream, [{ type: 'quota_reserved', data: { user_id: 'out-of-order', job_id: job, at } }]);
    const events = await eventStore.readStream(stream);
    // Two commands racing: the second one's inline projection runs first, then the first one's,
    // then the catch-up runner's, each with only its own events.
    await projectInline([quotasProjection], [events[3]!], documents, eventStore);
    await projectInline([quotasProjection], [events[2]!], documents, eventStore);
    await projectInline([quotasProjection], events, documents, eventStore);
    const doc = await documents.collection<QuotaDoc>(QUOTAS).get('out-of-order');
    expect(doc?.revision).toBe(3);
    expect(Object.keys(doc!.state.reservations).sort()).toEqual(['a', 'b', 'c']);
    expect(doc!.state.lifetime_limit).toBe(10);
  });
});
