/**
 * An organisation's time zone (issue 54): its managers choose the zone its reports write dates and
 * times in (an IANA name, Europe/Istanbul until they do); members read it, nobody else changes it;
 * an unknown name is a 400 naming the field, in the reader's language. The job service follows it
 * (and the organisation's name) from identity's events, for the PDF.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_ORGS, orgProfiles, type JobOrgDoc } from '../services/job/src/readModels/orgs.js';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let manager: { token: string; id: string };
let member: { token: string; id: string };
let stranger: { token: string; id: string };
let orgId: string;
const ORG = 'Boğaziçi Elektrik Dağıtım';

beforeAll(async () => {
  app = await startTestApp({}, { realClock: true });
  manager = await app.signUp('tz-manager@example.com');
  member = await app.signUp('tz-member@example.com');
  stranger = await app.signUp('tz-stranger@example.com');
  orgId = ((await app.request({ method: 'POST', url: '/orgs', token: manager.token, payload: { name: ORG } })).json() as { id: string }).id;
  const invite = (await app.request({ method: 'POST', url: `/orgs/${orgId}/invites`, token: manager.token, payload: { email: 'tz-member@example.com', role: 'member' } })).json() as { token: string };
  expect((await app.request({ method: 'POST', url: `/invites/${invite.token}/accept`, token: member.token })).statusCode).toBe(200);
}, 60_000);
afterAll(async () => app?.close());

const settings = (token: string) => app.request({ method: 'GET', url: `/orgs/${orgId}/settings`, token });
const change = (token: string, payload: unknown, lang = 'en') => app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, token, payload: payload as Record<string, unknown>, headers: { 'accept-language': lang } });

describe("an organisation's time zone", () => {
  it('is Europe/Istanbul until a manager chooses another; members read it', async () => {
    expect((await settings(member.token)).json()).toMatchObject({ time_zone: 'Europe/Istanbul' });
  });

  it('refuses an unknown name, an offset and a number with a 400 naming the field, in English and Turkish', async () => {
    for (const time_zone of ['Mars/Olympus_Mons', '+03:00', 'UTC+3']) {
      const en = await change(manager.token, { time_zone });
      expect(en.statusCode, en.body).toBe(400);
      expect(en.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(en.json().detail).toBe(`time_zone must be a time zone name such as Europe/Istanbul or UTC; "${time_zone}" is not one.`);
    }
    const tr = await change(manager.token, { time_zone: 'Mars/Olympus_Mons' }, 'tr');
    expect(tr.statusCode).toBe(400);
    expect(tr.json().detail).toBe('time_zone, Europe/Istanbul ya da UTC gibi bir saat dilimi adı olmalı; "Mars/Olympus_Mons" bir saat dilimi değil.');
    for (const time_zone of [3, '', 'x'.repeat(65)]) {
      const bad = await change(manager.token, { time_zone });
      expect(bad.statusCode, JSON.stringify(time_zone)).toBe(400);
      expect(bad.json().detail).toMatch(/time_zone/);
    }
    expect((await settings(member.token)).json()).toMatchObject({ time_zone: 'Europe/Istanbul' });
  });

  it('is changed by the managers only: a member is refused (403), a stranger told it does not exist (404), nobody must log in (401)', async () => {
    expect((await change(member.token, { time_zone: 'Europe/Berlin' })).statusCode).toBe(403);
    expect((await change(stranger.token, { time_zone: 'Europe/Berlin' })).statusCode).toBe(404);
    expect((await app.request({ method: 'PATCH', url: `/orgs/${orgId}/settings`, payload: { time_zone: 'Europe/Berlin' } })).statusCode).toBe(401);
    expect((await settings(stranger.token)).statusCode).toBe(404);
    expect((await settings(member.token)).json()).toMatchObject({ time_zone: 'Europe/Istanbul' });
  });

  it('is spelt as Intl spells it, leaves the other settings as they are, and reaches the job service with the name', async () => {
    const res = await change(manager.token, { time_zone: 'europe/berlin' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ blur_third_party: true, managers_see_unblurred: false, time_zone: 'Europe/Berlin' });
    expect((await settings(member.token)).json()).toEqual({ blur_third_party: true, managers_see_unblurred: false, time_zone: 'Europe/Berlin' });
    const orgs = app.infra.documents.collection<JobOrgDoc>(JOB_ORGS);
    const doc = await eventually(async () => {
      const d = await orgs.get(orgId);
      return d?.time_zone === 'Europe/Berlin' ? d : undefined;
    }, 15_000);
    expect(doc.name).toBe(ORG);
    expect(await orgProfiles(app.infra.documents)(orgId)).toEqual({ name: ORG, time_zone: 'Europe/Berlin' });
  });

  it('names an organisation the job service never heard of from the directory (created before it followed the events), in the default zone', async () => {
    const profiles = orgProfiles(app.infra.documents, app.identity.directory);
    await app.infra.documents.collection<JobOrgDoc>(JOB_ORGS).delete(orgId);
    expect(await orgProfiles(app.infra.documents)(orgId)).toEqual({ name: null, time_zone: 'Europe/Istanbul' });
    expect(await profiles(orgId)).toEqual({ name: ORG, time_zone: 'Europe/Istanbul' });
    expect(await app.infra.documents.collection<JobOrgDoc>(JOB_ORGS).get(orgId)).toMatchObject({ name: ORG });
  });
});
