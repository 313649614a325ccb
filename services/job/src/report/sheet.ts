import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { zonedDateTime, type Lang } from '@baret/platform';
import { fill, type ReportLabels } from './labels.js';

/**
 * The page the report's sections are drawn on: the pdfkit document, the report's words, the
 * column, and the few ways a section writes (a heading, a paragraph, a bullet list, an image).
 */

const require = createRequire(import.meta.url);
/** DejaVu Sans from the dejavu-fonts-ttf package: every Turkish letter (ğ ş ı İ ç ö ü), no system font needed. */
const FONT_DIR = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const REGULAR = join(FONT_DIR, 'DejaVuSans.ttf');
export const BOLD = join(FONT_DIR, 'DejaVuSans-Bold.ttf');

export const COLORS = { text: '#0f172a', muted: '#475569', line: '#cbd5e1', ok: '#15803d', bad: '#b91c1c', neutral: '#475569', accent: '#b45309' };

export interface Sheet {
  doc: PDFKit.PDFDocument;
  l: ReportLabels;
  lang: Lang;
  /** Where the report's dates and times are written: the organisation's zone, UTC for a personal job (issue 54). */
  timeZone: string;
  /** The text column: its left edge and its width. */
  left: number;
  width: number;
}

/** Where the page's text ends. */
export const bottomOf = (s: Sheet) => s.doc.page.height - s.doc.page.margins.bottom;

/** A new page unless `height` points fit on this one. */
export function ensure(s: Sheet, height: number): void {
  if (s.doc.y + height > bottomOf(s)) s.doc.addPage();
}

/** A section title, kept on the page of the first `keep` points of its content. */
export function heading(s: Sheet, text: string, keep = 40): void {
  const { doc, left, width } = s;
  ensure(s, keep + 30);
  doc.moveDown(0.8).font('Sans-Bold').fontSize(13).fillColor(COLORS.text).text(text, left, doc.y, { width });
  doc.moveTo(left, doc.y + 2).lineTo(left + width, doc.y + 2).lineWidth(0.5).strokeColor(COLORS.line).stroke();
  doc.moveDown(0.5);
}

export const para = (s: Sheet, text: string, color = COLORS.text, size = 10) => s.doc.font('Sans').fontSize(size).fillColor(color).text(text, s.left, s.doc.y, { width: s.width });

export function bullets(s: Sheet, items: string[], color = COLORS.text) {
  if (items.length === 0) return para(s, s.l.none, COLORS.muted);
  for (const item of items) {
    ensure(s, 16);
    s.doc.font('Sans').fontSize(10).fillColor(color).text(`•  ${item}`, s.left + 6, s.doc.y, { width: s.width - 6 });
  }
  return s.doc;
}

/** Places an image; false when pdfkit cannot read it (only JPEG and PNG are supported). */
export function tryImage(doc: PDFKit.PDFDocument, image: Buffer, x: number, y: number, options: PDFKit.Mixins.ImageOption): boolean {
  try {
    doc.image(image, x, y, options);
    return true;
  } catch {
    return false;
  }
}

export function durationText(l: ReportLabels, seconds: number | null): string {
  if (seconds === null) return '—';
  const total = Math.round(seconds);
  const m = Math.floor(total / 60);
  return m > 0 ? fill(l.minutesSeconds, { m, s: total % 60 }) : fill(l.seconds, { s: total });
}

/** A date and time in the report's zone, named: `29 Kas 2026 14:05 (Europe/Istanbul)`. */
export const dateText = (s: Pick<Sheet, 'lang' | 'timeZone'>, iso: string): string => zonedDateTime(iso, s.lang, s.timeZone);

export function costText(cost: number | null, currency: string, lang: Lang): string {
  if (cost === null) return '—';
  return `${new Intl.NumberFormat(lang === 'tr' ? 'tr-TR' : 'en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 }).format(cost)} ${currency}`;
}
