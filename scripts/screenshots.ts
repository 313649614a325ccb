/**
 * Screenshots of every web page at 1280 and 390 px, dark and light, Turkish and English, into
 * screenshots/ (git-ignored). The API is mocked with Playwright's page.route, so no backend is needed.
 *   npm run build -w web && npm run screenshots            (SHOTS=landing,admin to pick pages)
 * With SCREENSHOTS_API=real the pages come from the real server instead (`npm start` in its own
 * process, a temp data dir), with real accounts, an API key and finished jobs made through the API
 * from the labelled PPE photos; the files are named `*-real.png`.
 * Uses Debian's Chromium at /usr/bin/chromium (CHROMIUM_PATH to override).
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

import { chromium, type Page, type Route } from 'playwright-core';

import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { startServerForBrowser, type BrowserServer } from '../tests/helpers/browser.js';
import { confirmEmail } from '../tests/helpers/confirmEmail.js';
import { api } from '../tests/helpers/process.js';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'web', 'dist');
const OUT = join(ROOT, 'screenshots');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.map': 'application/json' };

function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!)).replace(/^(\.\.[/\\])+/, '');
    let file = join(DIST, path);
    if (!file.startsWith(DIST) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    done({ server, origin: `http://127.0.0.1:${port}` });
  }));
}

const now = Date.now();
const iso = (offsetSec: number) => new Date(now + offsetSec * 1000).toISOString();
const quota = { plan_name: 'free', daily_limit: null, monthly_limit: null, lifetime_limit: 2, daily_used: 1, monthly_used: 1, lifetime_used: 1, can_analyze: true };
const ADMIN = { id: 'a1', email: 'elif.kaya@baret-demo.com.tr', full_name: 'Elif Kaya', is_admin: true, last_login_at: iso(-3600), created_at: '2025-01-06T08:30:00Z', quota };
const JOB_DONE = {
  job_id: '7f3c9a1e-5b2d-4c8e-9a61-0d2f4b6c8e10',
  status: 'done',
  created_at: iso(-600),
  input_filename: 'direk-bakim-kadikoy.mp4',
  model_used: 'gpt-4o-mini',
  estimated_cost: 0.0132,
  currency: 'USD',
  error: null,
  logs: [
    { event: 'job_queued', timestamp: iso(-600) },
    { event: 'job_started', timestamp: iso(-598) },
    { event: 'video_opened', timestamp: iso(-597) },
    { event: 'frames_sampling', timestamp: iso(-596), data: { done: 0, total: 24 } },
    { event: 'frames_sampling', timestamp: iso(-593), data: { done: 12, total: 24 } },
    { event: 'frames_sampled', timestamp: iso(-590), data: { count: 24 } },
    { event: 'composites_created', timestamp: iso(-585), data: { count: 6 } },
    { event: 'job_classified', timestamp: iso(-570), data: { slug: 'ag_pano_bakim' } },
    { event: 'composite_analyzed', timestamp: iso(-540) },
    { event: 'job_completed', timestamp: iso(-514) },
  ],
  result: {
    job_type: 'ag_pano_bakim',
    job_display_name: 'AG pano bakımı / LV panel maintenance',
    required_groups: [['pic1', 'pic2'], ['pic7'], ['pic23', 'pic24'], ['pic30']],
    required_groups_name: ['Baret / Helmet', 'Yalıtkan eldiven / Insulating gloves', 'Reflektörlü yelek / Hi-vis vest', 'Gerilim dedektörü / Voltage detector'],
    missing_groups: [['pic7']],
    missing_groups_name: ['Yalıtkan eldiven / Insulating gloves'],
    satisfied_groups: [['pic1', 'pic2'], ['pic23', 'pic24']],
    satisfied_equipment: ['pic1', 'pic23'],
    satisfied_equipment_name: ['Baret / Helmet', 'Reflektörlü yelek / Hi-vis vest'],
    not_checked: [['pic30']],
    not_checked_name: ['Gerilim dedektörü / Voltage detector'],
    composites_processed: 6,
    model_used: 'gpt-4o-mini',
    token_usage: { prompt_tokens: 18234, completion_tokens: 912, total_tokens: 19146, estimated_cost: 0.0132, currency: 'USD' },
    evidence: [0, 1, 2].map((n) => ({ code: 'pic1', name: ['Baret', 'Yelek', 'Eldiven yok'][n]!, composite_index: n, frame_time_sec: 3.5 + n * 7, image_url: `/jobs/x/evidence/${n}` })),
    duration_seconds: 86,
  },
};
const JOBS = [
  { ...JOB_DONE, logs: undefined, result: undefined, user_email: 'ahmet.demir@example.com', user_full_name: 'Ahmet Demir' },
  { job_id: '1b2c3d4e-aaaa-4bbb-8ccc-111122223333', status: 'running', created_at: iso(-120), input_filename: 'trafo-merkezi-uskudar.mov', model_used: null, estimated_cost: null, currency: 'USD', error: null, user_email: 'zeynep@example.com', user_full_name: 'Zeynep Arslan' },
  { job_id: '9e8d7c6b-5a4f-4e3d-8c2b-444455556666', status: 'error', created_at: iso(-86400), input_filename: 'sepetli-arac.mp4', model_used: 'offline-analyzer', estimated_cost: 0, currency: 'USD', error: 'Video could not be decoded (unsupported codec).', user_email: 'ahmet.demir@example.com', user_full_name: 'Ahmet Demir' },
  { job_id: '5f5f5f5f-0000-4000-8000-777788889999', status: 'cancelled', created_at: iso(-172800), input_filename: 'hat-bakim.mp4', model_used: 'gpt-4o-mini', estimated_cost: 0.004, currency: 'USD', error: 'Cancelled by admin', user_email: 'elif.kaya@baret-demo.com.tr', user_full_name: 'Elif Kaya' },
];
const USAGE = {
  total_prompt_tokens: 1283450,
  total_completion_tokens: 61230,
  total_cost: 4.8217,
  currency: 'USD',
  users: [
    { user_id: 'u1', email: 'ahmet.demir@example.com', full_name: 'Ahmet Demir', job_count: 42, total_prompt_tokens: 802311, total_completion_tokens: 40112, total_cost: 3.0112 },
    { user_id: 'u2', email: 'zeynep@example.com', full_name: 'Zeynep Arslan', job_count: 17, total_prompt_tokens: 401992, total_completion_tokens: 18020, total_cost: 1.5521 },
    { user_id: 'u3', email: 'very.long.address.for.testing.overflow@distribution-company-example.com.tr', full_name: null, job_count: 2, total_prompt_tokens: 79147, total_completion_tokens: 3098, total_cost: 0.2584 },
  ],
};
const QUOTAS = [
  { user_id: 'u1', email: 'ahmet.demir@example.com', full_name: 'Ahmet Demir', quota: { ...quota, plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null, daily_used: 3, monthly_used: 42, lifetime_used: 42 } },
  { user_id: 'u2', email: 'zeynep@example.com', full_name: 'Zeynep Arslan', quota: { ...quota, lifetime_used: 2, can_analyze: false } },
  { user_id: 'u3', email: 'very.long.address.for.testing.overflow@distribution-company-example.com.tr', full_name: null, quota },
];
const TASKS = [
  { slug: 'ag_pano_bakim', name: 'AG pano bakımı' },
  { slug: 'yg_hucre_manevra', name: 'YG hücre manevrası' },
  { slug: 'yuksekte_calisma_direk', name: 'Direkte yüksekte çalışma' },
];
const EVIDENCE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#334155"/><rect x="120" y="60" width="80" height="150" rx="12" fill="#475569"/><circle cx="160" cy="55" r="24" fill="#d6a77a"/><path d="M134 52c0-18 12-28 26-28s26 10 26 28z" fill="#facc15"/><rect x="110" y="30" width="100" height="70" fill="none" stroke="#22c55e" stroke-width="4"/></svg>`;

type Scenario = 'visitor' | 'admin' | 'admin-result';

async function mockApi(page: Page, scenario: Scenario): Promise<void> {
  const json = (route: Route, body: unknown, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
  const API = /^\/(auth|admin|jobs|analyze|tasks|usage|contact|media)(\/|$)/;
  await page.route((url) => API.test(url.pathname), async (route) => {
    if (route.request().resourceType() === 'document') return route.continue();
    const url = new URL(route.request().url());
    const method = route.request().method();
    const p = url.pathname;
    if (p.startsWith('/media/')) return route.fulfill({ status: 404, body: '' });
    if (p === '/auth/me') return scenario === 'visitor' ? json(route, { detail: 'no' }, 401) : json(route, ADMIN);
    if (p === '/auth/tokens') return json(route, [{ id: 'k1', name: 'SCADA entegrasyonu', token_prefix: 'brt_4f2a', created_at: iso(-864000), last_used_at: iso(-7200) }, { id: 'k2', name: 'CI uploader', token_prefix: 'brt_91cd', created_at: iso(-86400), last_used_at: null }]);
    if (p === '/tasks') return json(route, TASKS);
    if (p === '/jobs' && url.searchParams.get('limit') === '1') return json(route, scenario === 'admin-result' ? [{ ...JOBS[0], status: 'running' }] : []);
    if (p === '/jobs') return json(route, JOBS.map(({ user_email: _e, user_full_name: _n, ...rest }) => rest));
    if (/^\/jobs\/[^/]+\/evidence\//.test(p)) return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: EVIDENCE_SVG });
    if (p.startsWith('/jobs/')) return json(route, JOB_DONE);
    if (p === '/admin/jobs') return json(route, JOBS);
    if (p === '/admin/usage') return json(route, USAGE);
    if (p === '/admin/users/quotas') return json(route, QUOTAS);
    if (method !== 'GET') return json(route, { status: 'received' }, 202);
    return json(route, { detail: 'not mocked' }, 404);
  });
}

interface Shot {
  name: string;
  path: string;
  scenario: Scenario;
  /** Do something before the picture (open the menu, submit an empty form…). */
  act?: (page: Page, width: number) => Promise<void>;
}

const SHOTS: Shot[] = [
  { name: 'landing', path: '/', scenario: 'visitor' },
  { name: 'landing-menu', path: '/', scenario: 'visitor', act: async (page, width) => { if (width < 768) await page.getByRole('button', { name: /Menüyü aç|Open menu/ }).click(); } },
  { name: 'how-it-works', path: '/how-it-works', scenario: 'visitor' },
  { name: 'ppe-equipment', path: '/ppe-equipment', scenario: 'visitor' },
  { name: 'pricing', path: '/pricing', scenario: 'visitor' },
  { name: 'pricing-user', path: '/pricing', scenario: 'admin' },
  { name: 'contact', path: '/contact', scenario: 'visitor', act: async (page) => { await page.getByRole('button', { name: /Mesajı gönder|Send message/ }).click(); } },
  { name: 'login', path: '/login', scenario: 'visitor' },
  { name: 'register', path: '/register', scenario: 'visitor', act: async (page) => { await page.getByRole('button', { name: /Hesap oluştur|Create account/ }).click(); } },
  { name: 'analyze', path: '/dashboard', scenario: 'admin', act: async (page) => { await page.getByRole('button', { name: /Gelişmiş ayarlar|Advanced settings/ }).click(); } },
  { name: 'analyze-result', path: '/dashboard', scenario: 'admin-result', act: async (page) => { await page.getByRole('button', { name: /Yeni analiz|New analysis/ }).first().waitFor(); await page.waitForTimeout(400); } },
  { name: 'history', path: '/dashboard/history', scenario: 'admin' },
  { name: 'api-keys', path: '/dashboard/api-keys', scenario: 'admin' },
  { name: 'profile', path: '/dashboard/profile', scenario: 'admin' },
  { name: 'admin', path: '/dashboard/admin', scenario: 'admin', act: async (page) => { await page.getByRole('textbox', { name: /Günlük limit|Daily limit/ }).first().fill('-1'); } },
  { name: 'app-menu', path: '/dashboard/history', scenario: 'admin', act: async (page, width) => { if (width < 981) await page.getByRole('button', { name: /Menüyü aç|Open menu/ }).click(); } },
];

interface RealData {
  server: BrowserServer;
  token: string;
  adminId: string;
  /** The admin's finished job, as GET /jobs/{id} answers it in each language. */
  jobs: Record<string, unknown>;
  dispose(): Promise<void>;
}

/** The real server with an admin, two users, finished jobs and an API key, made through the API. */
async function realData(): Promise<RealData> {
  const server = await startServerForBrowser({ BARET_ADMIN_EMAILS: 'elif.kaya@baret-demo.com.tr' });
  const fixtures = await videoFixtures();
  try {
    const video = (await fixtures.photos('direk-bakim-kadikoy.mp4', 12)).path;
    const people = [
      { email: 'elif.kaya@baret-demo.com.tr', password: 'screenshot password', full_name: 'Elif Kaya' },
      { email: 'ahmet.demir@example.com.tr', password: 'screenshot password', full_name: 'Ahmet Demir' },
      { email: 'very.long.address.for.testing.overflow@distribution-company-example.com.tr', password: 'screenshot password' },
    ];
    const tokens: string[] = [];
    let adminId = '';
    for (const person of people) {
      const reg = await api<{ id: string }>(server.url, '/auth/register', { method: 'POST', body: JSON.stringify(person) });
      if (reg.status !== 201) throw new Error(`register ${person.email}: ${reg.status} ${JSON.stringify(reg.body)}`);
      adminId ||= reg.body.id;
      const login = await api<{ access_token: string }>(server.url, '/auth/login', { method: 'POST', body: JSON.stringify({ email: person.email, password: person.password }) });
      tokens.push(login.body.access_token);
    }
    await confirmEmail(server.url, { dataDir: server.dataDir }, adminId); // an admin once confirmed (issue 37)
    const submit = async (token: string, name: string) => {
      const form = new FormData();
      form.append('payload', JSON.stringify({ job_type: 'auto', sampling: 'uniform', target_composites: 4, frames_per_composite: 4, dedupe_by_equipment: true }));
      form.append('file', new Blob([readFileSync(video)], { type: 'video/mp4' }), name);
      const res = await fetch(`${server.url}/analyze`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      if (res.status !== 202) throw new Error(`analyze: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { job_id: string }).job_id;
    };
    const waitDone = async (token: string, id: string) => {
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
        const { body } = await api<{ status: string }>(server.url, `/jobs/${id}`, { token });
        if (!['queued', 'running'].includes(body.status)) return;
      }
      throw new Error(`job ${id} did not finish`);
    };
    const ahmetJob = await submit(tokens[1]!, 'trafo-merkezi-uskudar.mp4');
    await waitDone(tokens[1]!, ahmetJob);
    const jobId = await submit(tokens[0]!, 'direk-bakim-kadikoy.mp4');
    await waitDone(tokens[0]!, jobId);
    const jobs: Record<string, unknown> = {};
    for (const lang of ['tr', 'en']) jobs[lang] = (await api(server.url, `/jobs/${jobId}`, { token: tokens[0]!, headers: { 'accept-language': lang } })).body;
    await api(server.url, '/auth/tokens', { method: 'POST', token: tokens[0]!, body: JSON.stringify({ name: 'SCADA entegrasyonu' }) });
    return { server, token: tokens[0]!, adminId, jobs, dispose: () => server.stop() };
  } finally {
    await fixtures.dispose();
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error('web/dist is missing: run `npm run build -w web` first');
  const real = process.env.SCREENSHOTS_API === 'real' ? await realData() : null;
  mkdirSync(OUT, { recursive: true });
  const only = (process.env.SHOTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const widths = (process.env.WIDTHS ?? '1280,390').split(',').map(Number);
  const themes = (process.env.THEMES ?? 'dark,light').split(',');
  const langs = (process.env.LANGS ?? 'tr,en').split(',');
  const { server, origin } = real ? { server: null, origin: real.server.url } : await serve();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  let count = 0;
  try {
    for (const shot of SHOTS.filter((s) => (only.length === 0 || only.includes(s.name)) && !(real && s.scenario === 'visitor'))) {
      for (const width of widths) {
        for (const theme of themes) {
          for (const lang of langs) {
            const context = await browser.newContext({ viewport: { width, height: width < 768 ? 844 : 900 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
            await context.addInitScript(
              ({ theme: th, lang: lg, token, recent }) => {
                // Runs in the page; the root tsconfig has no DOM types, hence the narrow cast.
                const store = (globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } }).localStorage;
                store.setItem('amp-dashboard-theme', th);
                store.setItem('baret-lang', lg);
                if (token) store.setItem('baret-token', token);
                if (recent) store.setItem(recent.key, JSON.stringify(recent.jobs));
              },
              {
                theme,
                lang,
                token: shot.scenario === 'visitor' ? null : (real?.token ?? 'screenshot-token'),
                // With the real server, the finished job is among the analyze page's recent ones.
                recent: real ? { key: `baret-recent-jobs:${real.adminId}`, jobs: [real.jobs[lang]] } : null,
              },
            );
            const page = await context.newPage();
            const problems: string[] = [];
            page.on('pageerror', (e) => problems.push(e.message));
            page.on('console', (m) => {
              if (m.type() === 'error' && !/demo\.mov/.test(m.location().url)) problems.push(m.text());
            });
            if (!real) await mockApi(page, shot.scenario);
            await page.goto(`${origin}${shot.path}`, { waitUntil: 'networkidle' });
            await page.locator('.spinner-lg').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
            if (real && shot.scenario === 'admin-result') {
              // Open the finished job from the recent analyses, as a person would.
              await page.locator('.recent-item').first().click();
              await page.getByRole('button', { name: /Yeni analiz|New analysis/ }).first().waitFor();
              // Its pictures: evidence frames of what was worn, or crops of the workers who went without.
              await page.locator('.evidence img, .violation img').first().waitFor();
              await page.waitForLoadState('networkidle');
              // A full-page picture is taken from the top (the sticky header would sit mid-page).
              await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
            } else if (shot.act) await shot.act(page, width);
            await page.waitForTimeout(300);
            const overflow = await page.evaluate(() => {
              const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
              return root.scrollWidth - root.clientWidth;
            });
            if (overflow > 0) problems.push(`horizontal overflow of ${overflow}px`);
            const file = join(OUT, `${shot.name}-${width}-${theme}-${lang}${real ? '-real' : ''}.png`);
            await page.screenshot({ path: file, fullPage: !shot.name.endsWith('menu') });
            count += 1;
            console.log(`${problems.length ? '!' : '✓'} ${file.replace(`${ROOT}/`, '')}${problems.length ? `  ${problems.join('; ')}` : ''}`);
            await context.close();
          }
        }
      }
    }
  } finally {
    await browser.close();
    server?.close();
    await real?.dispose();
  }
  console.log(`${count} screenshots in ${OUT.replace(`${ROOT}/`, '')}/`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
