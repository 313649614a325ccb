import { fill } from './labels.js';
import { violationsOf, type Violation } from './content.js';
import { COLORS, durationText, ensure, heading, para, tryImage, type Sheet } from './sheet.js';

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

/** One violation: the worker's crop (or a note that it is missing), when and what they were seen without. */
async function drawViolation(s: Sheet, v: Violation, load: (url: string) => Promise<Buffer | null>): Promise<void> {
  const { doc, l, left, width } = s;
  ensure(s, 88);
  const y = doc.y;
  const image = await load(v.image_url);
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
