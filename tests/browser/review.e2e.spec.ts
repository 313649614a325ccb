/**
 * The review of findings (issue 53) in Chromium against the real server, in Turkish and English: a
 * manager of an organisation reviews a crew member's job with the keyboard only (j/k move between
 * the cards, 2 dismisses a violation as "worn", 1 confirms another); the job page, the PDF (its
 * text, read with pdftotext) and the organisation's compliance figures follow the reviewed verdict;
 * the organisation's audit log lists the reviews; the crew member sees no review controls on their
 * own job and the API refuses them (403, in their language). Screenshots of the review screen on a
 * phone and a desktop, and a PDF page with the reviewed findings, go to $BARET_SCREENSHOTS (default:
 * the temp folder).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { sharedDataDir } from '@baret/platform';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { ensureWebBuilt, startServerForBrowser, withBrowser, type BrowserServer } from '../helpers/browser.js';
import { api, unlimitedAdmin } from '../helpers/process.js';
import { TEXT, login, visible } from './flows.js';

const run = promisify(execFile);
const SHOTS = process.env.BARET_SCREENSHOTS ?? join(tmpdir(), 'baret-issue53-screens');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
const PASSWORD = 'correct horse battery';
const MANAGER = { email: 'mudur@example.com', name: 'Mehmet Müdür' };
const CREW = { email: 'ekip@example.com', name: 'Ayşe Ekip' };

const T = {
  tr: {
    title: 'Bulguları inceleyin',
    list: 'İncelenecek bulgular',
    says: /Baret’e göre:\s*Eksik/,
    notReviewed: 'İncelenmedi',
    right: 'Doğru',
    violations: 'İhlaller',
    dismissed: 'İncelemede geçersiz sayılanlar',
    progress: (n: number, of: number) => `${of} bulgudan ${n} tanesi incelendi`,
    readOnly: 'İncelemeler',
    pdf: 'PDF indir',
    pdfReviewed: `${MANAGER.name} tarafından`,
    pdfDismissed: 'İncelemede düşülen bulgular',
    pdfDismissedWhy: 'inceleyene göre ekipman takılıydı',
    audit: 'Denetim kaydı, en yeni önce',
    reviewedAction: 'Bir bulguyu inceledi',
    refused: 'İşin bulgularını yalnızca işin kuruluşunun yöneticileri inceleyebilir.',
    bell: /^Bildirimler/,
    queueCard: 'İncelenecek bulgular',
    queueCount: 'Kuruluşunuzun 2 işinde incelenmemiş bulgu var.',
    openQueue: 'İnceleme kuyruğunu aç',
    teamList: 'Kuruluşun işleri',
    frame: /karenin tamamı$/,
  },
  en: {
    title: 'Review the findings',
    list: 'Findings to review',
    says: /Baret says:\s*Missing/,
    notReviewed: 'Not reviewed',
    right: 'Right',
    violations: 'Violations',
    dismissed: 'Dismissed by review',
    progress: (n: number, of: number) => `${n} of ${of} findings reviewed`,
    readOnly: 'Reviews',
    pdf: 'Download PDF',
    pdfReviewed: `Reviewed by ${MANAGER.name}`,
    pdfDismissed: 'Findings dismissed by review',
    pdfDismissedWhy: 'the reviewer says the equipment was worn',
    audit: 'Audit log entries, newest first',
    reviewedAction: 'Reviewed a finding',
    refused: 'Only the managers of the job’s organisation can review its findings.',
    bell: /^Notifications/,
    queueCard: 'Findings to review',
    queueCount: /^\d jobs of your organisation have findings not yet reviewed\.$/,
    openQueue: 'Open the review queue',
    teamList: 'Organisation’s jobs',
    frame: /: the whole frame$/,
  },
} as const;
type Lang = keyof typeof T;

/** Two workers, one bare-headed without a vest (valid__00626), then a worker without a hard hat (valid__02623): at least two violations. */
const PHOTOS = [
  { prefix: 'valid__00626', seconds: 4 },
  { prefix: 'valid__02623', seconds: 4 },
];

interface Job {
  job_id: string;
  status: string;
  violation_count: number | null;
  may_review?: boolean;
  result: { violations: Array<{ dismissed?: boolean; review?: { by_name: string | null } | null }> } | null;
}

let server: BrowserServer;
let fx: Awaited<ReturnType<typeof videoFixtures>>;
let manager: string;
let crew: string;
let orgId: string;
const jobs: Partial<Record<Lang, string>> = {};

const post = <B>(path: string, body: unknown, token?: string, lang = 'en') =>
  api<B>(server.url, path, { method: 'POST', body: JSON.stringify(body), headers: { 'accept-language': lang }, ...(token ? { token } : {}) });
const signIn = async (email: string) => (await post<{ access_token: string }>('/auth/login', { email, password: PASSWORD })).body.access_token;
const job = async (id: string, token = manager) => (await api<Job>(server.url, `/jobs/${id}`, { token })).body;

async function analyse(video: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('payload', JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'person', target_composites: 4, frames_per_composite: 4, dedupe_by_equipment: true }));
  form.append('file', new Blob([await readFile(video)], { type: 'video/mp4' }), 'direk.mp4');
  const res = await fetch(`${server.url}/analyze`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  expect(res.status, await res.clone().text()).toBe(202);
  const id = ((await res.json()) as { job_id: string }).job_id;
  const deadline = Date.now() + 240_000;
  for (;;) {
    const j = await job(id, token);
    if (['done', 'error', 'cancelled'].includes(j.status)) {
      expect(j.status).toBe('done');
      expect(j.result!.violations.length, 'the video gives at least two violations').toBeGreaterThanOrEqual(2);
      return id;
    }
    if (Date.now() > deadline) throw new Error(`job ${id} still ${j.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The organisation's compliance figures today: violations summed over rows. */
async function violationsToday(): Promise<number> {
  const from = new Date(Date.now() - 86_400_000).toISOString();
  const to = new Date(Date.now() + 86_400_000).toISOString();
  const res = await api<{ rows: Array<{ violations: Record<string, number> }> }>(server.url, `/orgs/${orgId}/compliance?from=${from}&to=${to}&by=site&interval=day`, { token: manager });
  expect(res.status).toBe(200);
  return res.body.rows.reduce((s, r) => s + Object.values(r.violations).reduce((a, b) => a + b, 0), 0);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const built = ensureWebBuilt();
  fx = await videoFixtures();
  const dir = sharedDataDir('ppe-photos', 'safety-vest-v4', 'images');
  const files = readdirSync(dir);
  const video = await fx.slideshow('review.mp4', PHOTOS.map((p) => ({ photo: join(dir, files.find((f) => f.startsWith(p.prefix))!), seconds: p.seconds })));
  await built;
  server = await startServerForBrowser({ BARET_ADMIN_EMAILS: 'admin@baret.test' });
  const admin = await unlimitedAdmin(server.url, server.dataDir, 'admin@baret.test');
  for (const who of [MANAGER, CREW]) expect((await post('/auth/register', { email: who.email, password: PASSWORD, full_name: who.name })).status).toBeLessThan(300);
  manager = await signIn(MANAGER.email);
  crew = await signIn(CREW.email);
  orgId = (await post<{ id: string }>('/orgs', { name: 'Boğaziçi Elektrik' }, manager)).body.id;
  const invite = await post<{ token: string }>(`/orgs/${orgId}/invites`, { email: CREW.email, role: 'member' }, manager);
  expect((await post(`/invites/${invite.body.token}/accept`, {}, crew)).status).toBe(200);
  const unlimited = { plan_name: 'enterprise', daily_limit: null, monthly_limit: null, lifetime_limit: null };
  expect((await api(server.url, `/admin/orgs/${orgId}/quota`, { method: 'PATCH', token: admin, body: JSON.stringify(unlimited) })).status).toBe(200);
  // Tokens carry the organisation: sign in again now that both belong to it.
  manager = await signIn(MANAGER.email);
  crew = await signIn(CREW.email);
  const [tr, en] = await Promise.all([analyse(video, crew), analyse(video, crew)]);
  jobs.tr = tr;
  jobs.en = en;
}, 600_000);
afterAll(async () => {
  await server?.stop();
  await fx?.dispose();
});

async function signInAs(page: Page, lang: Lang, email: string, to: string) {
  await page.addInitScript((value) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('baret-lang', value), lang);
  await page.goto(`${server.url}/login?redirectTo=${encodeURIComponent(to)}`);
  await login(page, TEXT[lang], { email, password: PASSWORD });
  await page.waitForURL((url) => url.pathname === to);
}

/** The review card that has the focus, or null. */
type El = { closest(s: string): { getAttribute(n: string): string | null } | null } | null;
const focusedCard = (page: Page) =>
  page.evaluate(() => ((globalThis as unknown as { document: { activeElement: El } }).document.activeElement?.closest('[data-card-index]')?.getAttribute('data-card-index') ?? null));

/** Tab until a review card has the focus (the keyboard only). */
async function tabToCards(page: Page) {
  for (let i = 0; i < 150 && (await focusedCard(page)) === null; i++) await page.keyboard.press('Tab');
  expect(await focusedCard(page), 'Tab reaches the review cards').toBe('0');
}

/**
 * The way a manager comes to the job: in Turkish from the notice that it finished (its link opens the
 * review, the first finding not yet reviewed focused); in English from the dashboard's review queue,
 * then with Tab to the cards.
 */
async function openForReview(page: Page, lang: Lang, id: string) {
  const t = T[lang];
  await signInAs(page, lang, MANAGER.email, '/dashboard');
  if (lang === 'tr') {
    await page.getByRole('button', { name: t.bell }).click();
    await page.getByRole('region', { name: 'Bildirimler' }).locator(`a[href="/dashboard/jobs/${id}#review"]`).click();
    await page.waitForURL((url) => url.pathname === `/dashboard/jobs/${id}` && url.hash === '#review');
    await visible(page.getByRole('list', { name: t.list }));
    await expect.poll(() => focusedCard(page)).toBe('0');
    return;
  }
  const card = page.getByRole('region', { name: t.queueCard });
  await visible(card.getByText(t.queueCount));
  await card.getByRole('link', { name: t.openQueue }).click();
  const list = page.getByRole('list', { name: t.teamList });
  await list.locator(`a[href="/dashboard/jobs/${id}"]`).click();
  await page.waitForURL((url) => url.pathname === `/dashboard/jobs/${id}`);
  await visible(page.getByRole('list', { name: t.list }));
  await tabToCards(page);
}

/** Presses j until the focused card is a violation the model found and nobody reviewed yet. */
async function jToUnreviewedViolation(page: Page, list: Locator, t: (typeof T)[Lang]) {
  const cards = list.getByRole('article');
  const count = await cards.count();
  for (let i = 0; i < count; i++) {
    const card = cards.nth(Number(await focusedCard(page)));
    const text = await card.innerText();
    if (t.says.test(text) && text.includes(t.notReviewed)) return card;
    await page.keyboard.press('j');
  }
  throw new Error('no unreviewed violation card');
}

describe.each(['tr', 'en'] as const)('reviews of findings in %s', (lang) => {
  const t = T[lang];

  it('a manager reviews a crew member’s job with the keyboard; the page, the PDF, the compliance figures and the audit log follow', async () => {
    const id = jobs[lang]!;
    const before = await job(id);
    expect(before.may_review).toBe(true);
    const modelCount = before.violation_count!;
    const figuresBefore = await violationsToday();

    await withBrowser(
      `review ${lang} desktop`,
      async ({ page }) => {
        await openForReview(page, lang, id);
        const list = page.getByRole('list', { name: t.list });
        const total = await list.getByRole('article').count();
        await visible(page.getByText(t.progress(0, total)));
        // The first violation: the worker wore the hard hat after all (2 = worn).
        const first = await jToUnreviewedViolation(page, list, t);
        await page.keyboard.press('2');
        await expect.poll(() => first.innerText(), { timeout: 15_000 }).toContain(MANAGER.name);
        // The focus moved on by itself; the next violation is right (1 = confirmed).
        const second = await jToUnreviewedViolation(page, list, t);
        await page.keyboard.press('1');
        await expect.poll(() => second.innerText(), { timeout: 15_000 }).toContain(MANAGER.name);
        await visible(page.getByText(t.progress(2, total)));
        await visible(page.getByRole('heading', { name: t.dismissed }));
        await visible(page.getByRole('heading', { name: t.violations, exact: true }));
        expect(await second.getByRole('button', { name: t.right }).getAttribute('aria-pressed')).toBe('true');
        await page.screenshot({ path: join(SHOTS, `review-${lang}-desktop.png`), fullPage: true });
        // Back to the confirmed violation (the focus moved on): f opens its whole frame, the worker boxed.
        await page.keyboard.press('k');
        await page.keyboard.press('f');
        const dialog = page.getByRole('dialog', { name: t.frame });
        await visible(dialog.getByRole('img'));
        await expect.poll(() => dialog.getByRole('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(640);
        await page.screenshot({ path: join(SHOTS, `review-${lang}-frame.png`) });
        await page.keyboard.press('Escape');

        // The PDF says who reviewed what, and lists the dismissed finding apart.
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: t.pdf }).click()]);
        const pdf = join(SHOTS, `review-${lang}.pdf`);
        await download.saveAs(pdf);
        const text = (await run('pdftotext', [pdf, '-'])).stdout.replace(/\s+/g, ' ');
        expect(text).toContain(t.pdfReviewed);
        expect(text).toContain(t.pdfDismissed);
        expect(text).toContain(t.pdfDismissedWhy);
        // The page with the dismissed findings, as an image to look at.
        const { stdout: pages } = await run('pdfinfo', [pdf]);
        const n = Number(/Pages:\s+(\d+)/.exec(pages)![1]);
        for (let p = 1; p <= n; p++) {
          const { stdout: pageText } = await run('pdftotext', ['-f', String(p), '-l', String(p), pdf, '-']);
          if (pageText.includes(t.pdfDismissed)) {
            await run('pdftoppm', ['-png', '-r', '60', '-f', String(p), '-l', String(p), '-singlefile', pdf, join(SHOTS, `review-${lang}-pdf-page`)]);
            break;
          }
        }

        // The organisation's audit log lists the reviews.
        await page.goto(`${server.url}/dashboard/organisation`);
        const audit = page.getByRole('table', { name: t.audit });
        await visible(audit);
        await expect.poll(async () => (await audit.innerText()).split(t.reviewedAction).length - 1).toBeGreaterThanOrEqual(2);
      },
      { viewport: DESKTOP, locale: 'tr-TR' },
    );

    const after = await job(id);
    expect(after.violation_count).toBe(modelCount - 1);
    expect(after.result!.violations.filter((v) => v.dismissed)).toHaveLength(1);
    await expect.poll(violationsToday, { timeout: 15_000 }).toBe(figuresBefore - 1);
    writeFileSync(join(SHOTS, `review-${lang}-counts.json`), JSON.stringify({ modelCount, after: after.violation_count, figuresBefore, figuresAfter: await violationsToday() }));

    // The review screen on a phone.
    await withBrowser(
      `review ${lang} phone`,
      async ({ page }) => {
        await signInAs(page, lang, MANAGER.email, `/dashboard/jobs/${id}`);
        const list = page.getByRole('list', { name: t.list });
        await visible(list);
        // What a phone shows at the review cards, and the whole review section.
        // The section's title at the top, under the sticky header.
        await page.getByRole('heading', { name: t.title }).evaluate((el) => (el as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }));
        await page.evaluate(() => (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, -80));
        await page.screenshot({ path: join(SHOTS, `review-${lang}-phone.png`) });
        await page.getByRole('region', { name: t.title }).screenshot({ path: join(SHOTS, `review-${lang}-phone-section.png`) });
        const box = await list.getByRole('article').first().getByRole('button', { name: t.right }).boundingBox();
        // Big enough for a thumb.
        expect(box!.height).toBeGreaterThanOrEqual(44);
      },
      { viewport: PHONE, locale: 'tr-TR' },
    );
  }, 600_000);

  it('a crew member sees no review controls on their own job, and the API refuses them in their language', async () => {
    const id = jobs[lang]!;
    expect((await job(id, crew)).may_review).toBe(false);
    const refused = await post<{ detail: string }>(`/jobs/${id}/reviews`, { worker: 1, group: 'pic1,pic2,pic3', verdict: 'worn' }, crew, lang);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe(t.refused);
    await withBrowser(
      `crew ${lang}`,
      async ({ page }) => {
        await signInAs(page, lang, CREW.email, `/dashboard/jobs/${id}`);
        await visible(page.getByRole('heading', { name: t.violations, exact: true }));
        // The reviews standing are shown (read only) once the manager has reviewed; never a control.
        await visible(page.getByRole('heading', { name: t.readOnly, exact: true }));
        expect(await page.getByRole('button', { name: t.right }).count()).toBe(0);
        await page.screenshot({ path: join(SHOTS, `review-${lang}-crew-phone.png`), fullPage: true });
      },
      { viewport: PHONE, locale: 'tr-TR' },
    );
  }, 300_000);
});
