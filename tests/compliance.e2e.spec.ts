/**
 * Compliance over time (issue 28) on the seeded demo organisation (`npm run admin -- seed-demo`:
 * 3 sites, 4 crews, 200 jobs over 12 weeks): the endpoint's figures equal a recount from the jobs
 * themselves (GET /jobs?scope=org and GET /jobs/{id}), the read model rebuilt from the events gives
 * the same rows, and the CSV holds one row per job with Turkish letters intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCompliance, COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS } from '@baret/job';
import { DEMO_MANAGER, DEMO_PASSWORD, seedDemo } from '../services/standalone/src/seedDemo.js';
import { startTestApp, type TestApp } from './helpers/app.js';

interface Row {
  key: string | null;
  name: string;
  period_start: string;
  jobs: number;
  jobs_with_violations: number;
  workers_seen: number;
  violations: Record<string, number>;
}
interface Report {
  rows: Row[];
  groups: Record<string, string>;
  latest_violations: Array<{ job_id: string; image_url: string; site_name: string | null; group_name: string }>;
}
interface Detail {
  job_id: string;
  status: string;
  created_at: string;
  site_id: string | null;
  crew_id: string | null;
  result: { job_type: string; workers_seen: number; violations: Array<{ group: string[] }> } | null;
}

let app: TestApp;
let token: string;
let orgId: string;
const DAY = 86_400_000;

beforeAll(async () => {
  app = await startTestApp({}, { background: false });
  const demo = await seedDemo(app, { now: app.clock.now() });
  orgId = demo.org_id;
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: DEMO_MANAGER, password: DEMO_PASSWORD } });
  token = (login.json() as { access_token: string }).access_token;
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const get = (url: string, lang = 'en') => app.request({ method: 'GET', url, token, headers: { 'accept-language': lang } });
const from = () => new Date(app.clock.now().getTime() - 13 * 7 * DAY).toISOString();
const to = () => app.clock.now().toISOString();
const compliance = async (query: string) => {
  const res = await get(`/orgs/${orgId}/compliance?from=${from()}&to=${to()}&${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Report;
};

/** Every job of the organisation as the API shows it: listed week by week (at most 100 a page), then each one's detail. */
async function allJobs(): Promise<Detail[]> {
  const ids = new Set<string>();
  for (let t = Date.parse(from()); t < Date.parse(to()); t += 7 * DAY) {
    const page = (await get(`/jobs?scope=org&limit=100&from=${new Date(t).toISOString()}&to=${new Date(Math.min(t + 7 * DAY, Date.parse(to()))).toISOString()}`)).json() as Array<{ job_id: string }>;
    expect(page.length).toBeLessThan(100);
    for (const j of page) ids.add(j.job_id);
  }
  return Promise.all([...ids].map(async (id) => (await get(`/jobs/${id}`)).json() as Detail));
}

/** The rows recounted from the jobs: per site and Monday-based UTC week. */
function recount(jobs: Detail[], by: 'site' | 'crew') {
  const rows = new Map<string, Omit<Row, 'name'>>();
  for (const j of jobs.filter((x) => x.status === 'done')) {
    const d = new Date(j.created_at);
    const monday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
    const key = by === 'site' ? j.site_id : j.crew_id;
    const id = `${monday}|${key}`;
    const row = rows.get(id) ?? { key, period_start: monday, jobs: 0, jobs_with_violations: 0, workers_seen: 0, violations: {} };
    row.jobs += 1;
    row.jobs_with_violations += j.result!.violations.length > 0 ? 1 : 0;
    row.workers_seen += j.result!.workers_seen;
    for (const v of j.result!.violations) row.violations[v.group.join(',')] = (row.violations[v.group.join(',')] ?? 0) + 1;
    rows.set(id, row);
  }
  return [...rows.values()].sort((a, b) => a.period_start.localeCompare(b.period_start) || String(a.key).localeCompare(String(b.key)));
}
const comparable = (rows: Row[]) => rows.map(({ name: _name, ...r }) => r).sort((a, b) => a.period_start.localeCompare(b.period_start) || String(a.key).localeCompare(String(b.key)));

describe('compliance over time on the seeded organisation', () => {
  it('equals a recount from the jobs, by site and by crew, week by week', async () => {
    const jobs = await allJobs();
    expect(jobs).toHaveLength(200);
    expect(new Set(jobs.map((j) => j.site_id)).size).toBe(3);
    expect(new Set(jobs.map((j) => j.crew_id)).size).toBe(4);
    const bySite = await compliance('by=site&interval=week');
    expect(comparable(bySite.rows)).toEqual(recount(jobs, 'site'));
    expect(bySite.rows.reduce((s, r) => s + r.jobs, 0)).toBe(200);
    expect(new Set(bySite.rows.map((r) => r.period_start)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(bySite.rows.map((r) => r.name))).toEqual(new Set(['Kadıköy Trafo Merkezi', 'Çankaya Dağıtım Hattı', 'Bornova Direk Sahası']));
    const byCrew = await compliance('by=crew&interval=week');
    expect(comparable(byCrew.rows)).toEqual(recount(jobs, 'crew'));
    // Violations were found, and they are named in the reader's language.
    const totalViolations = bySite.rows.reduce((s, r) => s + Object.values(r.violations).reduce((a, b) => a + b, 0), 0);
    expect(totalViolations).toBeGreaterThan(20);
    expect(Object.values(bySite.groups)).toEqual(expect.arrayContaining([expect.stringMatching(/hard hat|helmet/i)]));
    const tr = (await get(`/orgs/${orgId}/compliance?from=${from()}&to=${to()}`, 'tr')).json() as Report;
    expect(Object.values(tr.groups).join(' ')).toMatch(/baret/i);
    expect(bySite.latest_violations.length).toBeGreaterThan(0);
    expect(bySite.latest_violations[0]!.image_url).toMatch(/^\/jobs\/[^/]+\/violations\/0$/);
  });

  it('groups by job type and month, and filters by site, crew and job type', async () => {
    const byType = await compliance('by=job_type&interval=month');
    expect(byType.rows.reduce((s, r) => s + r.jobs, 0)).toBe(200);
    expect(byType.rows.every((r) => r.period_start.endsWith('-01'))).toBe(true);
    expect(new Set(byType.rows.map((r) => r.name))).toContain('General site entry');
    const site = byType.rows.length > 0 ? (await compliance('by=site&interval=month')).rows[0]!.key! : '';
    const oneSite = await compliance(`by=crew&interval=month&site_id=${site}`);
    const allSites = await compliance('by=site&interval=month');
    expect(oneSite.rows.reduce((s, r) => s + r.jobs, 0)).toBe(allSites.rows.filter((r) => r.key === site).reduce((s, r) => s + r.jobs, 0));
    const oneType = await compliance('by=site&interval=week&job_type=genel_saha_girisi');
    expect(oneType.rows.reduce((s, r) => s + r.jobs, 0)).toBe(byType.rows.filter((r) => r.key === 'genel_saha_girisi').reduce((s, r) => s + r.jobs, 0));
  });

  it('gives the same rows after the read model is rebuilt from the events', async () => {
    const before = await Promise.all(['by=crew&interval=day', 'by=site&interval=week', 'by=job_type&interval=month'].map(compliance));
    await app.infra.documents.collection(COMPLIANCE).deleteMany({});
    await app.infra.documents.collection(COMPLIANCE_DAYS).deleteMany({});
    await app.infra.documents.collection(COMPLIANCE_PERIODS).deleteMany({});
    expect((await compliance('by=crew&interval=day')).rows).toEqual([]);
    expect((await compliance('by=site&interval=week')).rows).toEqual([]);
    const rebuilt = await rebuildCompliance(app.infra.eventStore, app.infra.documents, 'test', app.clock.now());
    expect(rebuilt.jobs).toBe(200);
    expect(await Promise.all(['by=crew&interval=day', 'by=site&interval=week', 'by=job_type&interval=month'].map(compliance))).toEqual(before);
  });

  it('reads whole weeks and months from their precomputed sums and the cut ones at either end from the days: the same as the days summed', async () => {
    // A range that starts on a Thursday and ends on a Tuesday cuts a week (and a month) at each end.
    const start = new Date(Date.parse(from()));
    const thursday = new Date(start.getTime() + (((4 - start.getUTCDay() + 7) % 7) + 7) * 86_400_000).toISOString().slice(0, 10);
    const end = new Date(Date.parse(to()) - 86_400_000);
    const tuesday = new Date(end.getTime() - (((end.getUTCDay() - 2 + 7) % 7) + 7) * 86_400_000).toISOString().slice(0, 10);
    const range = async (query: string) => {
      const res = await get(`/orgs/${orgId}/compliance?from=${thursday}&to=${tuesday}&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Report;
    };
    const daily = await range('by=site&interval=day');
    const weekOf = (day: string) => {
      const d = new Date(`${day}T00:00:00.000Z`);
      return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    };
    for (const [interval, bucket] of [['week', weekOf], ['month', (day: string) => `${day.slice(0, 7)}-01`]] as const) {
      const summed = new Map<string, { jobs: number; with: number; workers: number; violations: Record<string, number> }>();
      for (const r of daily.rows) {
        const k = `${bucket(r.period_start)}|${r.key}`;
        const m = summed.get(k) ?? { jobs: 0, with: 0, workers: 0, violations: {} };
        m.jobs += r.jobs;
        m.with += r.jobs_with_violations;
        m.workers += r.workers_seen;
        for (const [g, n] of Object.entries(r.violations)) m.violations[g] = (m.violations[g] ?? 0) + n;
        summed.set(k, m);
      }
      const report = await range(`by=site&interval=${interval}`);
      expect(report.rows.length, interval).toBeGreaterThan(1);
      expect(Object.fromEntries(report.rows.map((r) => [`${r.period_start}|${r.key}`, { jobs: r.jobs, with: r.jobs_with_violations, workers: r.workers_seen, violations: r.violations }]))).toEqual(Object.fromEntries(summed));
    }
  });

  it('is for managers: a member gets 403', async () => {
    const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: 'ekip1@example.com', password: DEMO_PASSWORD } });
    const member = (login.json() as { access_token: string }).access_token;
    expect((await app.request({ method: 'GET', url: `/orgs/${orgId}/compliance`, token: member })).statusCode).toBe(403);
    expect((await app.request({ method: 'GET', url: `/orgs/${orgId}/jobs.csv`, token: member })).statusCode).toBe(403);
  });

  it('exports every job as CSV with a byte order mark, Turkish letters intact, one row per job', async () => {
    const res = await get(`/orgs/${orgId}/jobs.csv?from=${from()}&to=${to()}&lang=tr`, 'tr');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="baret-jobs-/);
    const bytes = res.rawPayload;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(201);
    const header = lines[0]!.split(';');
    expect(header.slice(0, 6)).toEqual(['Tarih (UTC)', 'Saha', 'Ekip', 'İş emri', 'İş türü', 'Durum']);
    expect(header.at(-1)).toBe('Bağlantı');
    expect(lines.slice(1).join('\n')).toContain('Çankaya Dağıtım Hattı');
    expect(lines[1]).toMatch(/;İE-2026-\d{4};/);
    expect(lines[1]).toMatch(/;Tamamlandı;/);
    // The violation columns add up to the compliance figures.
    const violationColumns = header.map((h, i) => (h.startsWith('İhlal: ') ? i : -1)).filter((i) => i >= 0);
    const csvTotal = lines.slice(1).reduce((s, l) => s + violationColumns.reduce((t, i) => t + Number(l.split(';')[i]), 0), 0);
    const rows = (await compliance('by=site&interval=month')).rows;
    expect(csvTotal).toBe(rows.reduce((s, r) => s + Object.values(r.violations).reduce((a, b) => a + b, 0), 0));
    expect(lines[1]!.split(';').at(-1)).toMatch(/^http:\/\/localhost(:\d+)?\/dashboard\/jobs\/[0-9a-f-]{36}$/);

    const en = await get(`/orgs/${orgId}/jobs.csv?from=${from()}&to=${to()}`, 'en');
    expect(en.rawPayload.subarray(3).toString('utf8').split('\r\n')[0]).toMatch(/^Date \(UTC\),Site,Crew,Work order,Job type,Status,/);
  });
});
