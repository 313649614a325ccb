import { fill } from './labels.js';
import { COLORS, dateText, type Sheet } from './sheet.js';

/** The footer on every page: when the report was made, page n of N. */
export function drawFooters(s: Sheet, now: Date): void {
  const { doc, l, left, width } = s;
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const footerY = doc.page.height - doc.page.margins.bottom + 16;
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Sans').fontSize(8).fillColor(COLORS.muted);
    doc.text(fill(l.generated, { date: dateText(s, now.toISOString()) }), left, footerY, { width: width * 0.75, lineBreak: false });
    doc.text(fill(l.page, { n: i - range.start + 1, total: range.count }), left + width * 0.75, footerY, { width: width * 0.25, align: 'right', lineBreak: false });
    doc.page.margins.bottom = saved;
  }
}
