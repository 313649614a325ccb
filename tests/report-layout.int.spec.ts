/**
 * The PDF report's layout and words (issue 40), rendered with pdfkit and read back with poppler:
 * a second violation stays on the page of the first when there is room for a compact row, and the
 * built-in checker is named in words, not by its internal description.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { renderJobReport, type ReportJob } from '../services/job/src/report/pdf.js';

const run = promisify(execFile);
let dir: string;
let crop: Buffer;
let frame: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baret-pdf-layout-'));
  crop = await sharp({ create: { width: 320, height: 400, channels: 3, background: '#446688' } }).jpeg().toBuffer();
  frame = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#886644' } }).jpeg().toBuffer();
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const OFFLINE = 'baret-offline (human centernet+movenet, learned PPE classifier)';

/** A finished job of the built-in checker: five required groups, one missing, three not checked, `n` workers without a hard hat. */
function job(n: number): ReportJob {
  return {
    job_id: '7f3c9a1e-5b2d-4c8e-9a61-0d2f4b6c8e10',
    status: 'done',
    created_at: '2026-03-04T10:00:00Z',
    input_filename: 'direk.mp4',
    model_used: OFFLINE,
    estimated_cost: 0,
    currency: 'USD',
    error: null,
    user_email: 'ekip@example.com',
    result: {
      job_type: 'ag_pano_bakim',
      job_display_name: 'AG pano bakımı',
      required_groups: [['pic1'], ['pic7'], ['pic23'], ['pic30'], ['pic12']],
      required_groups_name: ['Baret', 'Yalıtkan eldiven', 'Reflektörlü yelek', 'Gerilim dedektörü', 'İş ayakkabısı'],
      missing_groups: [['pic1']],
      missing_groups_name: ['Baret'],
      satisfied_equipment_name: ['Reflektörlü yelek'],
      not_checked: [['pic7'], ['pic30'], ['pic12']],
      not_checked_name: ['Yalıtkan eldiven', 'Gerilim dedektörü', 'İş ayakkabısı'],
      composites_processed: 6,
      model_used: OFFLINE,
      duration_seconds: 17,
      violations: Array.from({ length: n }, (_, i) => ({ group: ['pic1'], group_name: 'Baret', worker: i + 1, time_sec: 3 + i * 5, end_sec: 6 + i * 5, frames: 3, reason_name: 'baş açık', image_url: `/v/${i}` })),
      evidence: [0, 1].map((i) => ({ code: 'pic23', name: 'Reflektörlü yelek', composite_index: i, image_url: `/e/${i}` })),
    },
  };
}

async function pagesOf(name: string, pdf: Buffer): Promise<string[]> {
  const path = join(dir, `${name}.pdf`);
  await writeFile(path, pdf);
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', path, '-']);
  return stdout.split('\f').filter((page) => page.trim() !== '');
}

describe('the PDF report’s layout', () => {
  it.each(['tr', 'en'] as const)('%s: keeps two violations on the first page with the facts, names the built-in checker in words', async (lang) => {
    const pdf = await renderJobReport({ job: job(2), lang, now: new Date('2026-03-04T11:00:00Z'), image: async (url) => (url.startsWith('/v/') ? crop : frame) });
    const pages = await pagesOf(`two-${lang}`, pdf);
    const worker = (n: number) => (lang === 'tr' ? `${n}. çalışan` : `worker ${n}`);
    expect(pages[0]).toContain(worker(1));
    expect(pages[0]).toContain(worker(2));
    const text = pages.join('\n');
    expect(text).not.toContain('centernet');
    expect(text).not.toContain('baret-offline');
    expect(text).toContain(lang === 'tr' ? 'Baret yerleşik denetleyicisi' : 'Baret built-in checker');
    // The evidence is a third of the page wide at least (issue 53: a hard hat's brim must show):
    // each crop (320 px wide) is placed at 320 px × 72 / its x-ppi points.
    const path = join(dir, `two-${lang}.pdf`);
    const { stdout } = await run('pdfimages', ['-list', path]);
    const crops = stdout.split('\n').map((line) => line.trim().split(/\s+/)).filter((cols) => cols[3] === '320' && cols[4] === '400');
    expect(crops).toHaveLength(2);
    for (const cols of crops) expect((320 * 72) / Number(cols[12])).toBeGreaterThanOrEqual(595.28 / 3);
  });

  it('leaves no page with a lone violation: many violations fill their pages', async () => {
    const pdf = await renderJobReport({ job: job(9), lang: 'tr', now: new Date(), image: async (url) => (url.startsWith('/v/') ? crop : frame) });
    const pages = await pagesOf('nine', pdf);
    const perPage = pages.map((page) => (page.match(/\d+\. çalışan/g) ?? []).length);
    expect(perPage.reduce((a, b) => a + b, 0)).toBe(9);
    // Every page the violations run over, except the last, holds at least two.
    const used = perPage.filter((n) => n > 0);
    for (const n of used.slice(0, -1)) expect(n).toBeGreaterThanOrEqual(2);
  });

  it.each(['tr', 'en'] as const)('%s: says who reviewed each violation and when, or that it was not reviewed; lists dismissed ones apart (issue 53)', async (lang) => {
    const reviewed = job(3);
    const violations = reviewed.result!.violations as Array<Record<string, unknown>>;
    const by = (verdict: string, note: string | null = null) => ({ verdict, by: 'm1', by_name: 'Mehmet Müdür', at: '2026-03-05T08:30:00Z', note });
    Object.assign(violations[0]!, { dismissed: true, reviewed_verdict: 'worn', review: by('worn', 'Baret takılı') });
    Object.assign(violations[1]!, { dismissed: false, reviewed_verdict: 'missing', review: by('confirmed') });
    Object.assign(violations[2]!, { dismissed: false, reviewed_verdict: 'missing', review: null });
    violations.push({ group: ['pic23'], group_name: 'Reflektörlü yelek', worker: 9, time_sec: 40, end_sec: 44, added_by_review: true, dismissed: false, reviewed_verdict: 'missing', review: by('missing'), image_url: null });
    const pdf = await renderJobReport({ job: reviewed, lang, now: new Date('2026-03-05T11:00:00Z'), image: async (url) => (url.startsWith('/v/') ? crop : frame) });
    const text = (await pagesOf(`reviewed-${lang}`, pdf)).join('\n').replace(/\s+/g, ' ');
    const [violationsPart, dismissedPart] = text.split(lang === 'tr' ? 'İncelemede düşülen bulgular' : 'Findings dismissed by review');
    expect(dismissedPart, 'a heading for the dismissed findings').toBeDefined();
    const worker = (n: number) => (lang === 'tr' ? `${n}. çalışan` : `worker ${n}`);
    expect(violationsPart).not.toContain(worker(1));
    expect(dismissedPart).toContain(worker(1));
    expect(dismissedPart).toContain(lang === 'tr' ? 'inceleyene göre ekipman takılıydı' : 'the reviewer says the equipment was worn');
    expect(dismissedPart).toContain('Baret takılı');
    expect(violationsPart).toContain(worker(2));
    expect(violationsPart).toContain(lang === 'tr' ? 'Mehmet Müdür tarafından' : 'Reviewed by Mehmet Müdür on');
    expect(violationsPart).toContain(lang === 'tr' ? 'İncelenmedi' : 'Not reviewed');
    expect(violationsPart).toContain(worker(9));
    expect(violationsPart).toContain(lang === 'tr' ? 'inceleyen ekledi' : 'added by the reviewer');
    expect(text).not.toContain(lang === 'tr' ? 'görüntü yüklenemedi' : 'image could not be loaded');
  });
});
