/** The audit log as CSV: UTF-8 with a byte order mark, semicolons in Turkish, formulas shown as text. */
import type { Lang } from '@baret/platform';
import type { AuditEntries } from './auditDoc.js';
import { decodeCursor, page, present } from './queries.js';
import type { AuditQuery } from './schemas.js';

/** The most rows one CSV export holds (newest first). */
export const AUDIT_CSV_MAX = 50_000;

function csvCell(value: string | null | undefined, sep: string): string {
  let s = value ?? '';
  // A cell a spreadsheet would run as a formula is shown as text.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return s.includes(sep) || /["\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const CSV_HEADERS: Record<Lang, string[]> = {
  tr: ['Zaman (UTC)', 'İşlem', 'Sonuç', 'Kullanıcı kimliği', 'E-posta', 'Kuruluş', 'Nesne türü', 'Nesne', 'Adres', 'Tarayıcı', 'Ayrıntılar'],
  en: ['Time (UTC)', 'Action', 'Outcome', 'User id', 'E-mail', 'Organisation', 'Object type', 'Object', 'Address', 'Browser', 'Details'],
};

export async function csv(log: AuditEntries, scope: { orgId?: string }, q: AuditQuery, lang: Lang): Promise<string> {
  const sep = lang === 'tr' ? ';' : ',';
  const lines = [CSV_HEADERS[lang].map((h) => csvCell(h, sep)).join(sep)];
  let after = q.cursor ? decodeCursor(q.cursor) : undefined;
  for (let total = 0; total < AUDIT_CSV_MAX; ) {
    const { rows, next } = await page(log, scope, q, Math.min(1000, AUDIT_CSV_MAX - total), after);
    for (const e of await present(log, rows)) {
      const details = Object.entries(e.details)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      lines.push([e.at, e.action, e.outcome, e.actor_id, e.actor_email, e.org_id, e.object_type, e.object_id, e.ip, e.user_agent, details].map((c) => csvCell(c, sep)).join(sep));
    }
    total += rows.length;
    if (!next) break;
    after = next;
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
