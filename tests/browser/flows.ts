/**
 * The acceptance flows of "The web app", written as a person would use it: elements are found
 * by role and accessible name, in the language the UI shows. Shared by the Turkish and the
 * English browser tests.
 */
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';

export type Lang = 'tr' | 'en';

/** What a person reads on screen, in both languages (kept here, not imported from the app). */
export const TEXT = {
  tr: {
    registerTitle: 'Hesap oluşturun',
    email: 'E-posta',
    password: 'Şifre',
    confirmPassword: 'Şifre (tekrar)',
    fullName: /^Ad soyad/,
    createAccount: 'Hesap oluştur',
    loginTitle: 'Giriş yap',
    loginSubmit: 'Giriş yap',
    analyzeTitle: 'Video analizi',
    chooseVideo: 'Video seçin',
    uniform: 'Eşit aralıklı',
    advanced: 'Gelişmiş ayarlar',
    composites: 'Kompozit sayısı',
    frames: 'Kompozit başına kare',
    start: 'Analizi başlat',
    ready: 'Hazır',
    queued: 'Sırada',
    running: 'Çalışıyor',
    done: 'Tamamlandı',
    timeline: 'Zaman çizelgesi',
    jobQueuedEvent: 'İş sıraya alındı',
    jobCompletedEvent: 'İş tamamlandı',
    required: 'Gerekli ekipman',
    present: 'Mevcut',
    missing: 'Eksik',
    notChecked: 'Kontrol edilmedi',
    evidence: 'Kanıtlar',
    violations: 'İhlaller',
    duration: 'Analiz süresi',
    compositesStat: 'Kompozit',
    cost: 'Maliyet',
    newAnalysis: 'Yeni analiz',
    historyNav: 'Geçmiş',
    historyTitle: 'Analiz geçmişi',
    jobsList: 'İşler',
    apiNav: 'API',
    keyName: 'Anahtar adı',
    createKey: 'Anahtar oluştur',
    tokenLabel: 'Yeni API anahtarı',
    deleteKey: (name: string) => `${name} anahtarını sil`,
    confirmDeleteKey: 'Bu API anahtarı silinsin mi?',
    delete: 'Sil',
    noKeys: 'Henüz API anahtarı yok.',
    logout: 'Çıkış yap',
    loginLink: 'Giriş yap',
    quotaExceeded: 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.',
    notVideo: 'Lütfen bir video dosyası seçin.',
    removeFile: 'dosyasını kaldır$',
    adminNav: 'Admin',
    adminTitle: 'Admin',
    planFor: (who: string) => `${who} için plan`,
    presetPro: 'Pro (Günde 10, ayda 100 analiz)',
    save: 'Kaydet',
    saved: 'Kaydedildi.',
    quotaTitle: 'Kullanım ve kota',
    refreshQuota: 'Kotayı yenile',
    daily: 'Günlük',
    dailyOfTen: '0 / 10 kullanıldı',
    lifetimeLeft2: 'Ömür boyu 2 analiz kaldı',
    lifetimeUnlimited: 'Ömür boyu sınırsız',
    planFree: 'Ücretsiz',
    planPro: 'Pro',
    profileNav: 'Profil',
    planTitle: 'Plan ve kullanım',
    unreadableVideo: /okunabilen bir video değil/,
    seconds: /^\d+ sn$/,
    // "saha" (pole) and safety vest names as the Turkish catalogue has them.
    equipmentWord: /[çğıöşüÇĞİÖŞÜ]/,
  },
  en: {
    registerTitle: 'Create your account',
    email: 'Email',
    password: 'Password',
    confirmPassword: 'Confirm password',
    fullName: /^Full name/,
    createAccount: 'Create account',
    loginTitle: 'Log in',
    loginSubmit: 'Log in',
    analyzeTitle: 'Analyze a video',
    chooseVideo: 'Choose a video',
    uniform: 'Uniform',
    advanced: 'Advanced settings',
    composites: 'Composite count',
    frames: 'Frames per composite',
    start: 'Start analysis',
    ready: 'Ready',
    queued: 'Queued',
    running: 'Running',
    done: 'Done',
    timeline: 'Timeline',
    jobQueuedEvent: 'Job queued',
    jobCompletedEvent: 'Job completed',
    required: 'Required equipment',
    present: 'Present',
    missing: 'Missing',
    notChecked: 'Not checked',
    evidence: 'Evidence',
    violations: 'Violations',
    duration: 'Processing time',
    compositesStat: 'Composites',
    cost: 'Cost',
    newAnalysis: 'New analysis',
    historyNav: 'History',
    historyTitle: 'Analysis history',
    jobsList: 'Jobs',
    apiNav: 'API',
    keyName: 'Key name',
    createKey: 'Create key',
    tokenLabel: 'New API key',
    deleteKey: (name: string) => `Delete key ${name}`,
    confirmDeleteKey: 'Delete this API key?',
    delete: 'Delete',
    noKeys: 'No API keys yet.',
    logout: 'Log out',
    loginLink: 'Log in',
    quotaExceeded: 'You have reached your usage limit. Please contact an admin.',
    notVideo: 'Please choose a video file.',
    removeFile: '^Remove ',
    adminNav: 'Admin',
    adminTitle: 'Admin',
    planFor: (who: string) => `Plan for ${who}`,
    presetPro: 'Pro (10 analyses per day, 100 per month)',
    save: 'Save',
    saved: 'Saved.',
    quotaTitle: 'Usage and quota',
    refreshQuota: 'Refresh quota',
    daily: 'Daily',
    dailyOfTen: '0 of 10 used',
    lifetimeLeft2: '2 lifetime analyses left',
    lifetimeUnlimited: 'Unlimited lifetime',
    planFree: 'Free',
    planPro: 'Pro',
    profileNav: 'Profile',
    planTitle: 'Plan and usage',
    unreadableVideo: /not a video we can read/,
    seconds: /^\d+ s$/,
    equipmentWord: /^[\x20-\x7E]+$/,
  },
} as const;

export type Texts = (typeof TEXT)[Lang];

/** Waits until `check` passes (no fixed sleeps): polls every 50 ms up to `timeout`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeout = 15_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function visible(locator: Locator, timeout = 15_000): Promise<Locator> {
  await locator.waitFor({ state: 'visible', timeout });
  return locator;
}

/** The value of a <dt>label</dt><dd>value</dd> pair inside `scope`. */
export function definition(scope: Page | Locator, term: string): Locator {
  return scope.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
}

export function main(page: Page): Locator {
  return page.getByRole('main');
}

export async function register(page: Page, base: string, t: Texts, user: { email: string; password: string; fullName?: string }): Promise<void> {
  await page.goto(`${base}/register`);
  await visible(page.getByRole('heading', { name: t.registerTitle }));
  await page.getByLabel(t.email, { exact: true }).fill(user.email);
  await page.getByLabel(t.password, { exact: true }).fill(user.password);
  await page.getByLabel(t.confirmPassword, { exact: true }).fill(user.password);
  if (user.fullName) await page.getByLabel(t.fullName).fill(user.fullName);
  await page.getByRole('button', { name: t.createAccount }).click();
  await page.waitForURL(`${base}/dashboard`);
  await visible(page.getByRole('heading', { name: t.analyzeTitle, level: 1 }));
}

export async function login(page: Page, t: Texts, user: { email: string; password: string }): Promise<void> {
  await visible(page.getByRole('heading', { name: t.loginTitle, level: 1 }));
  await page.getByLabel(t.email, { exact: true }).fill(user.email);
  await page.getByLabel(t.password, { exact: true }).fill(user.password);
  await page.getByRole('button', { name: t.loginSubmit, exact: true }).click();
}

/** The status badge of the job panel (the region named after its heading). */
function jobPanel(page: Page): Locator {
  return page.locator('section.job-panel');
}

export async function chooseFile(page: Page, t: Texts, path: string): Promise<void> {
  await page.getByLabel(t.chooseVideo).setInputFiles(path);
}

/** Picks the video, uniform sampling and small composites, and starts the analysis. */
export async function startAnalysis(page: Page, t: Texts, path: string): Promise<void> {
  await chooseFile(page, t, path);
  await page.getByRole('radio', { name: t.uniform }).check();
  const advanced = page.getByRole('button', { name: t.advanced });
  if ((await advanced.getAttribute('aria-expanded')) !== 'true') await advanced.click();
  await page.getByRole('slider', { name: t.composites }).fill('2');
  await page.getByRole('slider', { name: t.frames }).fill('2');
  await page.getByRole('button', { name: t.start }).click();
}

/**
 * Watches the job panel while the job runs: the distinct texts its status badge showed, and the
 * timeline events listed before the job was done.
 */
export async function watchJobToDone(page: Page, t: Texts, timeout = 60_000): Promise<{ statuses: string[]; liveEvents: string[] }> {
  const badge = jobPanel(page).locator('.job-panel-head').getByText(new RegExp(`^(${[t.ready, t.queued, t.running, t.done].join('|')})$`));
  const events = jobPanel(page).getByRole('list', { name: t.timeline }).getByRole('listitem');
  const statuses: string[] = [];
  const liveEvents = new Set<string>();
  await until(
    async () => {
      const text = ((await badge.textContent({ timeout: 1000 }).catch(() => null)) ?? '').trim();
      if (text && statuses[statuses.length - 1] !== text) statuses.push(text);
      if (text !== t.done) for (const e of await events.allTextContents()) liveEvents.add(e);
      return text === t.done;
    },
    'the job to be done',
    timeout,
  );
  return { statuses, liveEvents: [...liveEvents] };
}

/** What the browser reports of an <img> (the tests' types have no DOM). */
interface ImageState {
  complete: boolean;
  naturalWidth: number;
}

/**
 * Whether every picture is loaded and decoded (a broken one has no width). Runs in the page via
 * `evaluateAll`, so it must not use anything from this module.
 */
function allLoaded(els: unknown[]): boolean {
  return els.every((el) => {
    const img = el as ImageState;
    return img.complete && img.naturalWidth > 0;
  });
}

/** Checks the finished job's result as shown: table, not-checked list, evidence, stats. */
export async function checkResult(page: Page, t: Texts): Promise<{ required: string[]; notChecked: string[]; proofs: Array<'evidence' | 'violations'> }> {
  const panel = jobPanel(page);
  const table = panel.getByRole('region', { name: t.required }).getByRole('table');
  await visible(table);
  const rows = table.getByRole('row');
  const rowTexts = (await rows.allTextContents()).slice(1);
  expect(rowTexts.length).toBeGreaterThan(0);
  for (const row of rowTexts) expect(row).toMatch(new RegExp(`(${t.present}|${t.missing}|${t.notChecked})$`));
  const required = await table.locator('tbody th').allTextContents();
  // The names are in the UI's language.
  expect(required.join(' ')).toMatch(t.equipmentWord);

  const missingRegion = panel.getByRole('region', { name: new RegExp(`^${t.missing}`) });
  await visible(missingRegion);

  const notCheckedRegion = panel.getByRole('region', { name: t.notChecked });
  const notChecked = await notCheckedRegion.getByRole('listitem').allTextContents();
  expect(notChecked.length).toBeGreaterThan(0);
  // A group the analyzer could not check is never shown as present (or missing) in the table.
  const statusOf = new Map<string, string>();
  for (const row of await table.locator('tbody tr').all()) statusOf.set(((await row.locator('th').textContent()) ?? '').trim(), ((await row.locator('td').textContent()) ?? '').trim());
  for (const name of notChecked) expect(statusOf.get(name.trim()), name).toMatch(new RegExp(`${t.notChecked}$`));
  const statuses = [...statusOf.values()];
  expect(statuses.some((status) => status.endsWith(t.present) || status.endsWith(t.missing))).toBe(true);

  // The proof shown: a frame for each present item (evidence) and the worker's crop for each
  // violation. Which of the two a video gets depends on the analyzer's verdicts: a present item in
  // the table needs the evidence pictures; violations, when listed, their pictures; at least one
  // kind is shown, and every picture shown loads.
  const proofs: Array<'evidence' | 'violations'> = [];
  if (statuses.some((status) => status.endsWith(t.present))) proofs.push('evidence');
  if ((await panel.getByRole('region', { name: t.violations }).count()) > 0) proofs.push('violations');
  expect(proofs.length, 'evidence or violation pictures').toBeGreaterThan(0);
  for (const proof of proofs) {
    const images = panel.getByRole('region', { name: t[proof] }).getByRole('img');
    await visible(images.first());
    await until(async () => await images.evaluateAll(allLoaded), `${proof} pictures to load`);
  }

  expect(((await definition(panel, t.duration).textContent()) ?? '').trim()).toMatch(t.seconds);
  expect(((await definition(panel, t.compositesStat).textContent()) ?? '').trim()).toMatch(/^[1-9]\d*$/);
  expect(((await definition(panel, t.cost).textContent()) ?? '').trim()).toMatch(/^\d+[.,]\d{4} [A-Z]{3}$/);
  return { required, notChecked, proofs };
}

/** History (through the navigation) lists the job with its file name and status. */
export async function checkHistory(page: Page, t: Texts, fileName: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: t.historyNav, exact: true }).click();
  await visible(page.getByRole('heading', { name: t.historyTitle, level: 1 }));
  const item = page.getByRole('list', { name: t.jobsList }).getByRole('listitem').filter({ hasText: fileName });
  await visible(item);
  await visible(item.getByText(t.done, { exact: true }));
}

/**
 * Creates an API key on the API page, proves the one-time token works against the API, deletes
 * the key and proves the token is refused afterwards.
 */
export async function apiKeyRoundTrip(page: Page, base: string, t: Texts, email: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: t.apiNav, exact: true }).click();
  const keyName = 'CI yükleyici';
  await page.getByLabel(t.keyName).fill(keyName);
  await page.getByRole('button', { name: t.createKey }).click();
  const tokenText = await visible(page.getByLabel(t.tokenLabel));
  const token = ((await tokenText.textContent()) ?? '').trim();
  expect(token.length).toBeGreaterThan(20);

  const me = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { email: string }).email).toBe(email);
  const jobs = await fetch(`${base}/jobs`, { headers: { authorization: `Bearer ${token}` } });
  expect(jobs.status).toBe(200);
  expect(((await jobs.json()) as unknown[]).length).toBeGreaterThan(0);

  await page.getByRole('button', { name: t.deleteKey(keyName) }).click();
  const dialog = await visible(page.getByRole('dialog', { name: t.confirmDeleteKey }));
  await dialog.getByRole('button', { name: t.delete, exact: true }).click();
  await visible(page.getByText(t.noKeys));
  const after = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(after.status).toBe(401);
}

export async function logout(page: Page, base: string, t: Texts): Promise<void> {
  await page.getByRole('button', { name: t.logout }).click();
  await page.waitForURL(`${base}/`);
  await visible(page.getByRole('link', { name: t.loginLink }).first());
  expect(await page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('baret-token'))).toBeNull();
}

/** The start button's state and the alerts of the analyze form. */
export function analyzeForm(page: Page, t: Texts): Locator {
  return page.getByRole('form', { name: t.newAnalysis });
}

/**
 * A file that is not a video: picked by type it is refused at once; one that claims to be a
 * video (.mp4) but is not is refused by the server with a clear message.
 */
export async function nonVideoFiles(page: Page, t: Texts, files: { text: string; fakeMp4: string }): Promise<void> {
  await chooseFile(page, t, files.text);
  await visible(page.getByRole('alert').filter({ hasText: t.notVideo }));
  await startAnalysis(page, t, files.fakeMp4);
  await visible(analyzeForm(page, t).getByText(t.unreadableVideo));
  await page.getByRole('button', { name: new RegExp(t.removeFile) }).click();
}

export function appNav(page: Page, name: string): Locator {
  return page.getByRole('navigation').getByRole('link', { name, exact: true });
}

/** The quota card of the API page. */
export function quotaCard(page: Page, t: Texts): Locator {
  return page.getByRole('region', { name: t.quotaTitle });
}

/** On the admin page: the quota row of `who`, the Pro preset, save. */
export async function adminSetsPro(page: Page, t: Texts, who: string): Promise<void> {
  await appNav(page, t.adminNav).click();
  await visible(page.getByRole('heading', { name: t.adminTitle, level: 1 }));
  const plan = page.getByRole('combobox', { name: t.planFor(who) });
  const row = page.getByRole('listitem').filter({ has: plan });
  await visible(row);
  expect(await plan.inputValue()).toBe('free');
  await row.getByRole('button', { name: t.presetPro }).click();
  await row.getByRole('button', { name: t.save, exact: true }).click();
  await visible(row.getByRole('status').filter({ hasText: t.saved }));
  expect(await plan.inputValue()).toBe('pro');
}
