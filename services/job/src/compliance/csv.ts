import type { Lang } from '@baret/platform';
import { groupKey } from '../readModels/compliance.js';
import type { JobDoc } from '../readModels/jobs.js';
import { csvCell } from './queries.js';

const STATUS: Record<Lang, Record<string, string>> = {
  tr: { queued: 'Sırada', running: 'Çalışıyor', done: 'Tamamlandı', error: 'Hata', cancelled: 'İptal edildi' },
  en: { queued: 'Queued', running: 'Running', done: 'Done', error: 'Error', cancelled: 'Cancelled' },
};
const CSV_HEADERS: Record<Lang, string[]> = {
  tr: ['Tarih (UTC)', 'Saha', 'Ekip', 'İş emri', 'İş türü', 'Durum', 'Bağlantı'],
  en: ['Date (UTC)', 'Site', 'Crew', 'Work order', 'Job type', 'Status', 'Link'],
};
const VIOLATIONS_HEADER: Record<Lang, (group: string) => string> = { tr: (g) => `İhlal: ${g}`, en: (g) => `Violations: ${g}` };

/**
 * An organisation's jobs as CSV, one row per job: date, site, crew, work order, job type, status,
 * violations per equipment group, link. UTF-8 with a byte order mark, so spreadsheets show Turkish
 * letters; in Turkish cells are separated by semicolons, as Turkish spreadsheets expect; in English by commas.
 */
export function jobsCsv(jobs: readonly JobDoc[], o: { lang: Lang; origin: string; siteNames: ReadonlyMap<string, string>; crewNames: ReadonlyMap<string, string> }): string {
  const { lang, origin, siteNames, crewNames } = o;
  const sep = lang === 'tr' ? ';' : ',';
  // One column per equipment group any job was found without, named in the reader's language.
  const groupNames = new Map<string, string>();
  const perJob = jobs.map((j) => {
    const counts = new Map<string, number>();
    const violations = Array.isArray(j.result?.violations) ? (j.result.violations as Array<{ group?: string[] }>) : [];
    const names = (j.result?.names?.[lang] ?? j.result?.names?.en ?? {}) as { violation_group_names?: string[] };
    violations.forEach((v, n) => {
      const key = groupKey(v.group ?? []);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (!groupNames.has(key)) groupNames.set(key, names.violation_group_names?.[n] ?? key);
    });
    return counts;
  });
  const groups = [...groupNames.keys()];
  const header = [...CSV_HEADERS[lang].slice(0, 6), ...groups.map((g) => VIOLATIONS_HEADER[lang](groupNames.get(g)!)), CSV_HEADERS[lang][6]!];
  const lines = [header.map((h) => csvCell(h, sep)).join(sep)];
  jobs.forEach((j, i) => {
    const jobTypeName = (j.result?.names?.[lang] as { job_display_name?: string } | undefined)?.job_display_name ?? (typeof j.result?.job_type === 'string' ? j.result.job_type : j.params.job_type);
    const cells = [
      j.created_at.slice(0, 16).replace('T', ' '),
      j.site_id ? (siteNames.get(j.site_id) ?? '') : '',
      j.crew_id ? (crewNames.get(j.crew_id) ?? '') : '',
      j.work_order ?? '',
      jobTypeName,
      STATUS[lang][j.status] ?? j.status,
      ...groups.map((g) => (j.status === 'done' ? (perJob[i]!.get(g) ?? 0) : '')),
      `${origin}/dashboard/jobs/${j.id}`,
    ];
    lines.push(cells.map((c) => csvCell(c, sep)).join(sep));
  });
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
