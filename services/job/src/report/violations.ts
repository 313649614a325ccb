import { videoMoment, type Lang } from '@baret/platform';
import { fill, plural, type ReportLabels } from './labels.js';
import { violationsOf, type Violation } from './content.js';
import { COLORS, dateText, ensure, heading, para, tryImage, type Sheet } from './sheet.js';

/**
 * The violations (when the result has the field): a compact row each, the worker's crop beside its
 * words and who reviewed it (issue 53: "reviewed by … on …", or "not reviewed"). What counts is the
 * reviewed verdict: violations dismissed by a review are not listed as violations but after them,
 * under their own heading, so the auditor sees what was cleared, by whom and why.
 */
export async function drawViolations(s: Sheet, result: Record<string, unknown>, image: (url: string) => Promise<Buffer | null>): Promise<void> {
  if (!Array.isArray(result.violations)) return;
  const { l } = s;
  const all = violationsOf(result);
  const violations = all.filter((v) => !v.dismissed);
  const dismissed = all.filter((v) => v.dismissed);
  heading(s, l.violations, violations.length > 0 ? 88 : 20);
  if (violations.length === 0) para(s, l.noViolations, COLORS.muted);
  // A row each: the evidence a third of the page wide (issue 53: a hard hat's brim must show), kept
  // short enough that two violations share the first page with the facts (issue 40).
  for (const v of violations) await drawViolation(s, v, image, COLORS.bad);
  if (dismissed.length === 0) return;
  heading(s, l.dismissed, 88);
  for (const v of dismissed) await drawViolation(s, v, image, COLORS.muted);
}

/** Who reviewed a finding and when, what they said when it changes the finding, and their note. */
function reviewText(s: Sheet, v: Violation): string {
  const { l } = s;
  if (!v.review) return l.notReviewed;
  const by = fill(l.reviewedBy, { name: v.review.by_name ?? l.reviewerDeleted, date: dateText(s, v.review.at) });
  const what = v.added_by_review ? l.addedByReview : v.reviewed_verdict === 'worn' ? l.dismissedWorn : v.reviewed_verdict === 'not_a_worker' ? l.dismissedNotWorker : null;
  const note = v.review.note ? fill(l.reviewNote, { note: v.review.note }) : null;
  return [by, what, note].filter(Boolean).join(' · ');
}

/** The evidence's width: a third of the page (issue 53), and its height (a window onto the worker's crop). */
export const EVIDENCE_WIDTH = 200;
export const EVIDENCE_HEIGHT = 90;
const HEAD_CODES = new Set(['pic1', 'pic2', 'pic3']);
/** Which part of the crop the evidence window shows: its top (head and shoulders) for a hard hat, its middle for anything else. */
export const evidenceValign = (group: readonly string[]): 'top' | 'center' => (group.some((c) => HEAD_CODES.has(c)) ? 'top' : 'center');

/**
 * The worker's crop a third of the page wide, in a window of the part the finding is about: the head
 * and shoulders for a hard hat (the crop's top), the middle of the worker for anything else. Clipped
 * to the window; false when the image cannot be read.
 */
function drawEvidence(doc: PDFKit.PDFDocument, image: Buffer, x: number, y: number, group: readonly string[]): boolean {
  doc.save();
  doc.rect(x, y, EVIDENCE_WIDTH, EVIDENCE_HEIGHT).clip();
  const drawn = tryImage(doc, image, x, y, { cover: [EVIDENCE_WIDTH, EVIDENCE_HEIGHT], align: 'center', ...(evidenceValign(group) === 'center' ? { valign: 'center' as const } : {}) });
  doc.restore();
  if (drawn) doc.rect(x, y, EVIDENCE_WIDTH, EVIDENCE_HEIGHT).lineWidth(0.5).strokeColor(COLORS.line).stroke();
  return drawn;
}

/**
 * A violation in the words of its caption on the job page (violation-gallery.tsx), with its times
 * as a video player shows them (`0:06–0:07`), so the page and the PDF never differ (issue 54):
 * the worker's track with its evidence frame, or (results stored before issue 51) the run of frames.
 */
export function violationText(l: ReportLabels, v: Pick<Violation, 'group_name' | 'worker' | 'time_sec' | 'end_sec' | 'frames' | 'evidence_sec' | 'reason_name'>, lang: Lang): string {
  const time = videoMoment(v.time_sec);
  const end = v.end_sec === null ? time : videoMoment(v.end_sec);
  const names = { group: v.group_name, worker: v.worker, time, end };
  const caption =
    v.evidence_sec !== null && v.frames !== null
      ? end === time
        ? fill(plural(lang, l.violationTrackMoment, v.frames), { ...names, count: v.frames })
        : fill(plural(lang, l.violationTrackCaption, v.frames), { ...names, count: v.frames, evidence: videoMoment(v.evidence_sec) })
      : end === time
        ? fill(l.violationCaption, names)
        : fill(l.violationSpanCaption, { ...names, frames: v.frames ?? 2 });
  return v.reason_name ? fill(l.violationWithReason, { caption, reason: v.reason_name }) : caption;
}

/** One violation: the worker's crop (or a note that it is missing), when and what they were seen without, and its review. */
async function drawViolation(s: Sheet, v: Violation, load: (url: string) => Promise<Buffer | null>, color: string): Promise<void> {
  const { doc, l, left, width } = s;
  ensure(s, EVIDENCE_HEIGHT + 8);
  const y = doc.y;
  const image = v.image_url ? await load(v.image_url) : null;
  const text = violationText(l, v, s.lang);
  const review = reviewText(s, v);
  const beside = EVIDENCE_WIDTH + 12;
  if (image && drawEvidence(doc, image, left, y, v.group)) {
    doc.font('Sans').fontSize(10).fillColor(color).text(text, left + beside, y + 4, { width: width - beside });
    doc.font('Sans').fontSize(8.5).fillColor(COLORS.muted).text(review, left + beside, doc.y + 2, { width: width - beside });
    doc.y = Math.max(doc.y, y + EVIDENCE_HEIGHT + 2);
  } else {
    // A violation added by a reviewer has no crop of its own: nothing is missing.
    doc.font('Sans').fontSize(10).fillColor(color).text(v.image_url ? `${text} ${l.imageMissing}` : text, left, y, { width });
    doc.font('Sans').fontSize(8.5).fillColor(COLORS.muted).text(review, left, doc.y + 2, { width });
  }
  doc.moveDown(0.3);
}
