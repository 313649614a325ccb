import type { ReportLabels } from './labels.js';
import { modelOf, num, type ReportJob } from './content.js';
import { COLORS, costText, dateText, durationText, para, type Sheet } from './sheet.js';

/** The report's first lines: Baret, the title and what the report is. */
export function drawTitle(s: Sheet): void {
  const { doc, l, left } = s;
  doc.font('Sans-Bold').fontSize(22).fillColor(COLORS.accent).text('Baret', left, doc.y);
  doc.font('Sans-Bold').fontSize(16).fillColor(COLORS.text).text(l.title);
  doc.font('Sans').fontSize(10).fillColor(COLORS.muted).text(l.subtitle);
  doc.moveDown(0.8);
}

/** The job's facts, labelled: where, when, by whom and for which work order first, what an auditor reads the report for. */
export function factsOf(s: Sheet, job: ReportJob): Array<[string, string]> {
  const { l, lang } = s;
  const result = job.result;
  const usage = (result?.token_usage ?? null) as Record<string, unknown> | null;
  const cost = num(usage?.estimated_cost) ?? job.estimated_cost;
  const currency = (typeof usage?.currency === 'string' && usage.currency) || job.currency || 'USD';
  const { model, offline } = modelOf(job);
  const jobType = typeof result?.job_display_name === 'string' ? result.job_display_name : typeof result?.job_type === 'string' ? result.job_type : '—';
  const recordedBy = [job.user_full_name, job.user_email].filter(Boolean).join(' · ');
  return [
    [l.job, job.job_id],
    [l.organisation, job.org_id ? job.org_name || '—' : l.noOrganisation],
    [l.date, dateText(s, job.created_at)],
    [l.site, job.site_name || '—'],
    [l.crew, job.crew_name || '—'],
    [l.workOrder, job.work_order || '—'],
    [l.owner, recordedBy || '—'],
    [l.video, job.input_filename || '—'],
    [l.videoLength, durationText(l, num(job.video_duration_sec))],
    [l.jobType, jobType],
    [l.status, l.statuses[job.status as keyof ReportLabels['statuses']] ?? job.status],
    [l.processingTime, durationText(l, num(job.processing_sec) ?? num(result?.duration_seconds))],
    [l.composites, String(num(result?.composites_processed) ?? '—')],
    [l.model, offline ? l.modelOffline : model || '—'],
    [l.cost, costText(cost, currency, lang)],
  ];
}

/**
 * Short facts two a line, so that the where / when / who block leaves room for the findings on
 * page 1; the long ones (the job's id, who recorded it, the video, the checker) have a whole line.
 */
function factLines(l: ReportLabels, facts: Array<[string, string]>): Array<Array<[string, string]>> {
  const wide = new Set<string>([l.job, l.organisation, l.date, l.owner, l.video, l.model]);
  const lines: Array<Array<[string, string]>> = [];
  for (const fact of facts) {
    const last = lines.at(-1);
    if (!wide.has(fact[0]) && last && last.length === 1 && !wide.has(last[0]![0])) last.push(fact);
    else lines.push([fact]);
  }
  return lines;
}

/** The facts block, then the job's error when it has one. */
export function drawFacts(s: Sheet, job: ReportJob): void {
  const { doc, l, left, width } = s;
  const column = width / 2;
  const labelWidth = 110;
  for (const line of factLines(l, factsOf(s, job))) {
    const y = doc.y;
    let bottom = y;
    line.forEach(([label, value], k) => {
      const x = left + k * column;
      const valueWidth = (line.length === 1 ? width : column) - labelWidth - 8;
      doc.font('Sans-Bold').fontSize(9).fillColor(COLORS.muted).text(label, x, y, { width: labelWidth - 6 });
      bottom = Math.max(bottom, doc.y);
      doc.font('Sans').fontSize(9).fillColor(COLORS.text).text(value, x + labelWidth, y, { width: valueWidth });
      bottom = Math.max(bottom, doc.y);
    });
    doc.y = bottom + 3;
  }
  doc.x = left;
  if (job.error) {
    doc.moveDown(0.5);
    para(s, `${l.error}: ${job.error}`, COLORS.bad);
  }
}
