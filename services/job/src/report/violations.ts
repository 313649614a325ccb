import { videoMoment, type Lang } from '@baret/platform';
import { fill, plural, type ReportLabels } from './labels.js';
import { violationsOf, type Violation } from './content.js';
import { COLORS, ensure, heading, para, tryImage, type Sheet } from './sheet.js';

/** The violations (when the result has the field): a compact row each, the worker's crop beside its words. */
export async function drawViolations(s: Sheet, result: Record<string, unknown>, image: (url: string) => Promise<Buffer | null>): Promise<void> {
  if (!Array.isArray(result.violations)) return;
  const { l } = s;
  const violations = violationsOf(result);
  heading(s, l.violations, violations.length > 0 ? 88 : 20);
  if (violations.length === 0) para(s, l.noViolations, COLORS.muted);
  // A compact row each (an 80-pt crop beside its words), so a second violation does not open an almost empty page (issue 40).
  for (const v of violations) await drawViolation(s, v, image);
}

/**
 * A violation in the words of its caption on the job page (violation-gallery.tsx), with its times
 * as a video player shows them (`0:06–0:07`), so the page and the PDF never differ (issue 54):
 * the worker's track with its evidence frame, or (results stored before issue 51) the run of frames.
 */
export function violationText(l: ReportLabels, v: Violation, lang: Lang): string {
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

/** One violation: the worker's crop (or a note that it is missing), when and what they were seen without. */
async function drawViolation(s: Sheet, v: Violation, load: (url: string) => Promise<Buffer | null>): Promise<void> {
  const { doc, l, left, width } = s;
  ensure(s, 88);
  const y = doc.y;
  const image = await load(v.image_url);
  const text = violationText(l, v, s.lang);
  if (image && tryImage(doc, image, left, y, { fit: [80, 80] })) {
    doc.font('Sans').fontSize(10).fillColor(COLORS.bad).text(text, left + 92, y + 4, { width: width - 92 });
    doc.y = Math.max(doc.y, y + 82);
  } else {
    doc.font('Sans').fontSize(10).fillColor(COLORS.bad).text(`${text} ${l.imageMissing}`, left, y, { width });
  }
  doc.moveDown(0.3);
}
