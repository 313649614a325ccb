import PDFDocument from 'pdfkit';
import { NO_ORG_TIME_ZONE, type Lang } from '@baret/platform';
import { REPORT_LABELS } from './labels.js';
import { modelOf, type ReportJob } from './content.js';
import { drawEvidence } from './evidence.js';
import { drawFacts, drawTitle } from './facts.js';
import { drawEquipmentLists, drawNote, drawRequired } from './findings.js';
import { drawFooters } from './footer.js';
import { BOLD, COLORS, heading, para, REGULAR, type Sheet } from './sheet.js';
import { drawSignOff } from './signOff.js';
import { drawTimeline } from './timeline.js';
import { drawViolations } from './violations.js';

export type { ReportJob } from './content.js';

export interface ReportInput {
  job: ReportJob;
  lang: Lang;
  /** Loads an image the result points to (evidence, violation crops); null when it cannot. */
  image: (url: string) => Promise<Buffer | null>;
  now: Date;
  /** The zone every date and time is written in, named: the organisation's; default UTC (a personal job). */
  timeZone?: string;
}

/**
 * Renders a job's report as a PDF (A4), section by section: title, facts, required / worn /
 * missing / not checked, violations with their crops, the job's timeline, evidence frames, the
 * reviewer's sign-off, and a footer on every page.
 */
export async function renderJobReport(input: ReportInput): Promise<Buffer> {
  const { job, lang } = input;
  const l = REPORT_LABELS[lang];
  const result = job.result;
  const doc = new PDFDocument({ size: 'A4', margin: 50, bufferPages: true, info: { Title: `Baret — ${l.title} — ${job.job_id}`, Author: 'Baret', Producer: 'Baret' }, lang });
  doc.registerFont('Sans', REGULAR);
  doc.registerFont('Sans-Bold', BOLD);
  const done = bytesOf(doc);
  const sheet: Sheet = { doc, l, lang, timeZone: input.timeZone ?? NO_ORG_TIME_ZONE, left: doc.page.margins.left, width: doc.page.width - doc.page.margins.left - doc.page.margins.right };

  drawTitle(sheet);
  drawFacts(sheet, job);
  if (!result) {
    heading(sheet, l.required);
    para(sheet, l.noResult, COLORS.muted);
  } else {
    drawNote(sheet, result);
    drawRequired(sheet, result);
    drawEquipmentLists(sheet, result, modelOf(job).offline);
    await drawViolations(sheet, result, input.image);
  }
  drawTimeline(sheet, job);
  if (result) await drawEvidence(sheet, result, input.image);
  drawSignOff(sheet);
  drawFooters(sheet, input.now);
  doc.end();
  return done;
}

/** The document's bytes, once it has ended. */
function bytesOf(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
