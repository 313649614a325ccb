import { groups, sameGroup, strings } from './content.js';
import { bullets, COLORS, ensure, heading, para, type Sheet } from './sheet.js';

/** "No worker seen — nothing to judge": said first, before any list. */
export function drawNote(s: Sheet, result: Record<string, unknown>): void {
  if (typeof result.note !== 'string') return;
  const { doc, left, width } = s;
  doc.moveDown(0.5);
  doc.font('Sans-Bold').fontSize(12).fillColor(COLORS.accent).text(result.note, left, doc.y, { width });
}

/** Each required group with its verdict: present, missing, not judged or not checked. */
export function drawRequired(s: Sheet, result: Record<string, unknown>): void {
  const { doc, l, left, width } = s;
  const required = groups(result.required_groups);
  const requiredNames = strings(result.required_groups_name);
  const missing = groups(result.missing_groups);
  const notChecked = groups(result.not_checked);
  const missingNames = strings(result.missing_groups_name);
  const notCheckedNames = strings(result.not_checked_name);
  const notJudged = groups(result.not_judged);
  const notJudgedNames = strings(result.not_judged_name);

  heading(s, l.required);
  if (required.length === 0) para(s, l.noneRequired, COLORS.muted);
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
    ensure(s, 16);
    const y = doc.y;
    doc.font('Sans').fontSize(10).fillColor(COLORS.text).text(name, left + 6, y, { width: width - 150 });
    const after = doc.y;
    doc.font('Sans-Bold').fontSize(10).fillColor(color).text(`${mark} ${label}`, left + width - 140, y, { width: 140, align: 'right' });
    doc.y = Math.max(after, doc.y);
  });
}

/** What was seen worn, what was missing, what was not checked (and why). */
export function drawEquipmentLists(s: Sheet, result: Record<string, unknown>, offline: boolean): void {
  const { doc, l } = s;
  const missingNames = strings(result.missing_groups_name);
  const notCheckedNames = strings(result.not_checked_name);
  const notJudgedNames = strings(result.not_judged_name);
  heading(s, l.worn);
  bullets(s, strings(result.satisfied_equipment_name), COLORS.ok);
  heading(s, l.missing);
  bullets(s, missingNames, COLORS.bad);
  heading(s, l.notChecked);
  bullets(s, notCheckedNames);
  if (notCheckedNames.length > 0) {
    doc.moveDown(0.3);
    if (notJudgedNames.length > 0) para(s, `${l.notJudgedWhy} ${notJudgedNames.join(', ')}`, COLORS.muted, 9);
    if (notJudgedNames.length < notCheckedNames.length) para(s, offline ? l.notCheckedWhyOffline : l.notCheckedWhy, COLORS.muted, 9);
  }
}
