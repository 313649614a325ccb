import { COLORS, ensure, heading, para, type Sheet } from './sheet.js';

/**
 * The reviewer's sign-off at the end of the report (issue 54): who reviewed it, their position,
 * the date and a signature, each on a line to write on. (Issue 53 adds reviews per finding.)
 */
export function drawSignOff(s: Sheet): void {
  const { doc, l, left, width } = s;
  // The block is never split over two pages: a signature belongs under the findings it signs.
  ensure(s, 190);
  heading(s, l.signOff, 150);
  para(s, l.signOffIntro, COLORS.muted, 9);
  doc.moveDown(1.2);
  const column = (width - 30) / 2;
  const rows: Array<[string, string]> = [
    [l.reviewer, l.reviewerRole],
    [l.reviewDate, l.signature],
  ];
  for (const row of rows) {
    // Room above each line for a hand to write on.
    const y = doc.y + 34;
    row.forEach((label, k) => {
      const x = left + k * (column + 30);
      doc.moveTo(x, y).lineTo(x + column, y).lineWidth(0.7).strokeColor(COLORS.muted).stroke();
      doc.font('Sans').fontSize(8).fillColor(COLORS.muted).text(label, x, y + 4, { width: column, lineBreak: false });
    });
    doc.y = y + 22;
  }
  doc.x = left;
}
