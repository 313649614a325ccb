import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import PDFDocument from 'pdfkit';
import type { Lang } from '@baret/platform';
import { fill, REPORT_LABELS, type ReportLabels } from './labels.js';

const require = createRequire(import.meta.url);
/** DejaVu Sans from the dejavu-fonts-ttf package: every Turkish letter (ğ ş ı İ ç ö ü), no system font needed. */
const FONT_DIR = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const REGULAR = join(FONT_DIR, 'DejaVuSans.ttf');
const BOLD = join(FONT_DIR, 'DejaVuSans-Bold.ttf');

/** The job as GET /jobs/{id} presents it, in the report's language. */
export interface ReportJob {
  job_id: string;
  status: string;
  created_at: string;
  input_filename: string | null;
  model_used: string | null;
  estimated_cost: number | null;
  currency: string | null;
  error: string | null;
  user_email?: string | null;
  user_full_name?: string | null;
  site_name?: string | null;
  crew_name?: string | null;
  work_order?: string | null;
  video_duration_sec?: number | null;
  processing_sec?: number | null;
  result: Record<string, unknown> | null;
}

export interface Violation {
  group_name: string;
  worker: number;
  time_sec: number;
  /** Last frame of the run (absent in results stored before workers were followed across frames). */
  end_sec: number | null;
  frames: number | null;
  /** What the worker had instead ("cap or hat, not a hard hat", "bare head"), in the report's language. */
  reason_name: string | null;
  image_url: string;
}

export interface EvidenceFrame {
  name: string;
  composite_index: number;
  image_url: string;
}

export interface ReportInput {
  job: ReportJob;
  lang: Lang;
  /** Loads an image the result points to (evidence, violation crops); null when it cannot. */
  image: (url: string) => Promise<Buffer | null>;
  now: Date;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const groups = (v: unknown): string[][] => (Array.isArray(v) ? v.map(strings) : []);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const sameGroup = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('|') === [...b].sort().join('|');

/** Violations when the result has them (the field is optional); malformed entries are skipped. */
export function violationsOf(result: Record<string, unknown> | null): Violation[] {
  const raw = result?.violations;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((v: unknown) => {
    if (typeof v !== 'object' || v === null) return [];
    const r = v as Record<string, unknown>;
    const worker = num(r.worker);
    const time = num(r.time_sec);
    if (worker === null || time === null || typeof r.image_url !== 'string') return [];
    return [
      {
        group_name: typeof r.group_name === 'string' ? r.group_name : strings(r.group).join(' / '),
        worker,
        time_sec: time,
        end_sec: num(r.end_sec),
        frames: num(r.frames),
        reason_name: typeof r.reason_name === 'string' ? r.reason_name : null,
        image_url: r.image_url,
      },
    ];
  });
}

/** One frame per composite that holds evidence, with the names of what was seen in it. */
export function evidenceFramesOf(result: Record<string, unknown> | null): EvidenceFrame[] {
  const raw = Array.isArray(result?.evidence) ? (result.evidence as Array<Record<string, unknown>>) : [];
  const byComposite = new Map<number, EvidenceFrame>();
  for (const e of raw) {
    const index = num(e.composite_index);
    if (index === null || typeof e.image_url !== 'string') continue;
    const name = typeof e.name === 'string' ? e.name : String(e.code ?? '');
    const frame = byComposite.get(index);
    if (frame) frame.name = frame.name.split(', ').includes(name) ? frame.name : `${frame.name}, ${name}`;
    else byComposite.set(index, { name, composite_index: index, image_url: e.image_url });
  }
  return [...byComposite.values()].sort((a, b) => a.composite_index - b.composite_index);
}

function durationText(l: ReportLabels, seconds: number | null): string {
  if (seconds === null) return '—';
  const total = Math.round(seconds);
  const m = Math.floor(total / 60);
  return m > 0 ? fill(l.minutesSeconds, { m, s: total % 60 }) : fill(l.seconds, { s: total });
}

function dateText(iso: string, lang: Lang): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', hour12: false }).format(d)} UTC`;
}

function costText(cost: number | null, currency: string, lang: Lang): string {
  if (cost === null) return '—';
  return `${new Intl.NumberFormat(lang === 'tr' ? 'tr-TR' : 'en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 }).format(cost)} ${currency}`;
}

const COLORS = { text: '#0f172a', muted: '#475569', line: '#cbd5e1', ok: '#15803d', bad: '#b91c1c', neutral: '#475569', accent: '#b45309' };

/** Renders a job's report as a PDF (A4): facts, required / worn / missing / not checked, violations with their crops, evidence frames. */
export async function renderJobReport(input: ReportInput): Promise<Buffer> {
  const { job, lang } = input;
  const l = REPORT_LABELS[lang];
  const result = job.result;
  const doc = new PDFDocument({ size: 'A4', margin: 50, bufferPages: true, info: { Title: `Baret — ${l.title} — ${job.job_id}`, Author: 'Baret', Producer: 'Baret' }, lang });
  doc.registerFont('Sans', REGULAR);
  doc.registerFont('Sans-Bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const left = doc.page.margins.left;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const ensure = (height: number) => {
    if (doc.y + height > bottom()) doc.addPage();
  };
  /** A section title, kept on the page of the first `keep` points of its content. */
  const heading = (text: string, keep = 40) => {
    ensure(keep + 30);
    doc.moveDown(0.8).font('Sans-Bold').fontSize(13).fillColor(COLORS.text).text(text, left, doc.y, { width });
    doc.moveTo(left, doc.y + 2).lineTo(left + width, doc.y + 2).lineWidth(0.5).strokeColor(COLORS.line).stroke();
    doc.moveDown(0.5);
  };
  const para = (text: string, color = COLORS.text, size = 10) => doc.font('Sans').fontSize(size).fillColor(color).text(text, left, doc.y, { width });
  const bullets = (items: string[], color = COLORS.text) => {
    if (items.length === 0) return para(l.none, COLORS.muted);
    for (const item of items) {
      ensure(16);
      doc.font('Sans').fontSize(10).fillColor(color).text(`•  ${item}`, left + 6, doc.y, { width: width - 6 });
    }
    return doc;
  };

  // Title
  doc.font('Sans-Bold').fontSize(22).fillColor(COLORS.accent).text('Baret', left, doc.y);
  doc.font('Sans-Bold').fontSize(16).fillColor(COLORS.text).text(l.title);
  doc.font('Sans').fontSize(10).fillColor(COLORS.muted).text(l.subtitle);
  doc.moveDown(0.8);

  // Facts
  const usage = (result?.token_usage ?? null) as Record<string, unknown> | null;
  const cost = num(usage?.estimated_cost) ?? job.estimated_cost;
  const currency = (typeof usage?.currency === 'string' && usage.currency) || job.currency || 'USD';
  const model = (typeof result?.model_used === 'string' ? result.model_used : job.model_used) || '';
  // The built-in checker by what it is, not its internal description (issue 40).
  const offline = model.startsWith('baret-offline');
  const jobType = typeof result?.job_display_name === 'string' ? result.job_display_name : typeof result?.job_type === 'string' ? result.job_type : '—';
  const recordedBy = [job.user_full_name, job.user_email].filter(Boolean).join(' · ');
  // Where, when, by whom and for which work order first: what an auditor reads the report for.
  const facts: Array<[string, string]> = [
    [l.job, job.job_id],
    [l.date, dateText(job.created_at, lang)],
    [l.site, job.site_name || '—'],
    [l.crew, job.crew_name || '—'],
    [l.workOrder, job.work_order || '—'],
    [l.owner, recordedBy || '—'],
    [l.video, job.input_filename || '—'],
    [l.videoLength, durationText(l, num(job.video_duration_sec))],
    [l.jobType, jobType],
    [l.status, l.statuses[job.status as keyof ReportLabels['statuses']] ?? job.status],
    [l.processingTime, durationText(l, num(job.processing_sec) ?? num(result?.duration_seconds))],
    [l.composites, String(num(result?.composites_processed) ?? '—')],
    [l.model, offline ? l.modelOffline : model || '—'],
    [l.cost, costText(cost, currency, lang)],
  ];
  // Short facts two a line, so that the where / when / who block leaves room for the findings on
  // page 1; the long ones (the job's id, who recorded it, the video, the checker) have a whole line.
  const wide = new Set<string>([l.job, l.owner, l.video, l.model]);
  const lines: Array<Array<[string, string]>> = [];
  for (const fact of facts) {
    const last = lines.at(-1);
    if (!wide.has(fact[0]) && last && last.length === 1 && !wide.has(last[0]![0])) last.push(fact);
    else lines.push([fact]);
  }
  const column = width / 2;
  const labelWidth = 110;
  for (const line of lines) {
    const y = doc.y;
    let bottom = y;
    line.forEach(([label, value], k) => {
      const x = left + k * column;
      const valueWidth = (line.length === 1 ? width : column) - labelWidth - 8;
      doc.font('Sans-Bold').fontSize(9).fillColor(COLORS.muted).text(label, x, y, { width: labelWidth - 6 });
      bottom = Math.max(bottom, doc.y);
      doc.font('Sans').fontSize(9).fillColor(COLORS.text).text(value, x + labelWidth, y, { width: valueWidth });
      bottom = Math.max(bottom, doc.y);
    });
    doc.y = bottom + 3;
  }
  doc.x = left;
  if (job.error) {
    doc.moveDown(0.5);
    para(`${l.error}: ${job.error}`, COLORS.bad);
  }

  if (!result) {
    heading(l.required);
    para(l.noResult, COLORS.muted);
  } else {
    // "No worker seen — nothing to judge": said first, before any list.
    if (typeof result.note === 'string') {
      doc.moveDown(0.5);
      doc.font('Sans-Bold').fontSize(12).fillColor(COLORS.accent).text(result.note, left, doc.y, { width });
    }
    const required = groups(result.required_groups);
    const requiredNames = strings(result.required_groups_name);
    const missing = groups(result.missing_groups);
    const notChecked = groups(result.not_checked);
    const missingNames = strings(result.missing_groups_name);
    const notCheckedNames = strings(result.not_checked_name);
    const notJudged = groups(result.not_judged);
    const notJudgedNames = strings(result.not_judged_name);

    heading(l.required);
    if (required.length === 0) para(l.noneRequired, COLORS.muted);
    required.forEach((codes, i) => {
      const name = requiredNames[i] ?? codes.join(' / ');
      const isMissing = missing.some((g) => sameGroup(g, codes)) || missingNames.includes(name);
      const isUnchecked = !isMissing && (notChecked.some((g) => sameGroup(g, codes)) || notCheckedNames.includes(name));
      const isNotJudged = isUnchecked && (notJudged.some((g) => sameGroup(g, codes)) || notJudgedNames.includes(name));
      const [mark, label, color] = isMissing
        ? ['✗', l.missing, COLORS.bad]
        : isNotJudged
          ? ['?', l.notJudged, COLORS.neutral]
          : isUnchecked
            ? ['?', l.notChecked, COLORS.neutral]
            : ['✓', l.present, COLORS.ok];
      ensure(16);
      const y = doc.y;
      doc.font('Sans').fontSize(10).fillColor(COLORS.text).text(name, left + 6, y, { width: width - 150 });
      const after = doc.y;
      doc.font('Sans-Bold').fontSize(10).fillColor(color).text(`${mark} ${label}`, left + width - 140, y, { width: 140, align: 'right' });
      doc.y = Math.max(after, doc.y);
    });

    heading(l.worn);
    bullets(strings(result.satisfied_equipment_name), COLORS.ok);
    heading(l.missing);
    bullets(missingNames, COLORS.bad);
    heading(l.notChecked);
    bullets(notCheckedNames);
    if (notCheckedNames.length > 0) {
      doc.moveDown(0.3);
      if (notJudgedNames.length > 0) para(`${l.notJudgedWhy} ${notJudgedNames.join(', ')}`, COLORS.muted, 9);
      if (notJudgedNames.length < notCheckedNames.length) para(offline ? l.notCheckedWhyOffline : l.notCheckedWhy, COLORS.muted, 9);
    }

    const violations = violationsOf(result);
    if (Array.isArray(result.violations)) {
      heading(l.violations, violations.length > 0 ? 88 : 20);
      if (violations.length === 0) para(l.noViolations, COLORS.muted);
      // A compact row each (an 80-pt crop beside its words), so a second violation does not open an almost empty page (issue 40).
      for (const v of violations) {
        ensure(88);
        const y = doc.y;
        const image = await input.image(v.image_url);
        const time = durationText(l, v.time_sec);
        const end = v.end_sec === null ? time : durationText(l, v.end_sec);
        const line =
          end === time
            ? fill(l.violationLine, { worker: v.worker, time, group: v.group_name })
            : fill(l.violationSpanLine, { worker: v.worker, time, end, frames: v.frames ?? 2, group: v.group_name });
        const text = v.reason_name ? fill(l.violationReason, { line, reason: v.reason_name }) : line;
        if (image && tryImage(doc, image, left, y, { fit: [80, 80] })) {
          doc.font('Sans').fontSize(10).fillColor(COLORS.bad).text(text, left + 92, y + 4, { width: width - 92 });
          doc.y = Math.max(doc.y, y + 82);
        } else {
          doc.font('Sans').fontSize(10).fillColor(COLORS.bad).text(`${text} ${l.imageMissing}`, left, y, { width });
        }
        doc.moveDown(0.3);
      }
    }

    const frames = evidenceFramesOf(result);
    if (frames.length > 0) {
      // A frame takes the room left on the page down to 170 pt high, so no page ends with a large gap.
      heading(l.evidence, 190);
      for (const frame of frames) {
        ensure(200);
        const caption = fill(l.evidenceCaption, { n: frame.composite_index + 1, names: frame.name });
        doc.font('Sans-Bold').fontSize(10).fillColor(COLORS.text).text(caption, left, doc.y, { width });
        const y = doc.y + 4;
        const image = await input.image(frame.image_url);
        const high = Math.min(260, bottom() - y - 10);
        if (image && tryImage(doc, image, left, y, { fit: [width, high] })) doc.y = y + high + 6;
        else para(l.imageMissing, COLORS.muted);
        doc.moveDown(0.4);
      }
    }
  }

  // Footer on every page: when it was made, page n of N.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const footerY = doc.page.height - doc.page.margins.bottom + 16;
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Sans').fontSize(8).fillColor(COLORS.muted);
    doc.text(fill(l.generated, { date: dateText(input.now.toISOString(), lang) }), left, footerY, { width: width * 0.75, lineBreak: false });
    doc.text(fill(l.page, { n: i - range.start + 1, total: range.count }), left + width * 0.75, footerY, { width: width * 0.25, align: 'right', lineBreak: false });
    doc.page.margins.bottom = saved;
  }
  doc.end();
  return done;
}

/** Places an image; false when pdfkit cannot read it (only JPEG and PNG are supported). */
function tryImage(doc: PDFKit.PDFDocument, image: Buffer, x: number, y: number, options: PDFKit.Mixins.ImageOption): boolean {
  try {
    doc.image(image, x, y, options);
    return true;
  } catch {
    return false;
  }
}
