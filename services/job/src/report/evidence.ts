import { fill } from './labels.js';
import { evidenceFramesOf } from './content.js';
import { bottomOf, COLORS, ensure, heading, para, tryImage, type Sheet } from './sheet.js';

/** The evidence frames, one per composite, each with the names of what was seen in it. */
export async function drawEvidence(s: Sheet, result: Record<string, unknown>, image: (url: string) => Promise<Buffer | null>): Promise<void> {
  const { doc, l, left, width } = s;
  const frames = evidenceFramesOf(result);
  if (frames.length === 0) return;
  // A frame takes the room left on the page down to 170 pt high, so no page ends with a large gap.
  heading(s, l.evidence, 190);
  for (const frame of frames) {
    ensure(s, 200);
    const caption = fill(l.evidenceCaption, { n: frame.composite_index + 1, names: frame.name });
    doc.font('Sans-Bold').fontSize(10).fillColor(COLORS.text).text(caption, left, doc.y, { width });
    const y = doc.y + 4;
    const picture = await image(frame.image_url);
    const high = Math.min(260, bottomOf(s) - y - 10);
    if (picture && tryImage(doc, picture, left, y, { fit: [width, high] })) doc.y = y + high + 6;
    else para(s, l.imageMissing, COLORS.muted);
    doc.moveDown(0.4);
  }
}
