import { zonedClock } from '@baret/platform';
import { fill, plural, type ReportLabels } from './labels.js';
import { num, type ReportJob } from './content.js';
import { COLORS, durationText, ensure, heading, para, type Sheet } from './sheet.js';

type LogEntry = NonNullable<ReportJob['logs']>[number];

/** The worker's bookkeeping (prices, token use, where it stopped early): in the JSON, not a step a person follows (as on the job page). */
const INTERNAL = new Set(['model_pricing', 'llm_usage', 'early_stop_triggered']);
/** Reports that only update the one before them: of a run of them, the timeline shows the latest. */
const UPDATES = new Set(['frames_sampling']);

/** The entries the job page's timeline lists (job-timeline.tsx): each step once, no internal bookkeeping. */
export function timelineEntries(logs: readonly LogEntry[]): LogEntry[] {
  const shown = logs.filter((entry) => !INTERNAL.has(entry.event));
  return shown.filter((entry, index) => !(UPDATES.has(entry.event) && shown[index + 1]?.event === entry.event));
}

/** An entry's figures in words ("24 kare", "Kompozit 2 / 6"), as the job page adds them; null when there is nothing to add. */
function detail(s: Sheet, entry: LogEntry, logs: readonly LogEntry[]): string | null {
  const { l, lang } = s;
  const data = entry.data ?? {};
  const count = num(data.count);
  switch (entry.event) {
    case 'frames_sampling': {
      const [done, total] = [num(data.done), num(data.total)];
      return done === null || total === null ? null : fill(l.timelineFramesOf, { done, total });
    }
    case 'video_opened': {
      const seconds = num(data.duration_sec);
      return seconds === null ? null : fill(l.timelineVideoLength, { time: durationText(l, seconds) });
    }
    case 'frames_sampled':
    case 'frames_saved':
      return count === null ? null : fill(plural(lang, l.timelineFrames, count), { count });
    case 'composites_created':
      return count === null ? null : fill(plural(lang, l.timelineComposites, count), { count });
    case 'composite_analyzed': {
      const index = num(data.index);
      const total = num([...logs].reverse().find((e) => e.event === 'composites_created')?.data?.count);
      return index === null || total === null ? null : fill(l.timelineCompositeOf, { n: index + 1, total });
    }
    default:
      return null;
  }
}

/**
 * The job's timeline (issue 54): each step with its time of day in the report's zone, named once
 * above the list; the day is written where it changes (first, and past midnight).
 */
export function drawTimeline(s: Sheet, job: ReportJob): void {
  const { doc, l, left, width } = s;
  const entries = timelineEntries(job.logs ?? []);
  if (entries.length === 0) return;
  heading(s, l.timeline, 60);
  para(s, fill(l.timelineZone, { zone: s.timeZone }), COLORS.muted, 9);
  doc.moveDown(0.3);
  let day = '';
  for (const entry of entries) {
    const when = zonedClock(entry.timestamp, s.timeZone);
    const stamp = when.day === day ? when.time : `${when.day} ${when.time}`;
    day = when.day;
    const name = l.events[entry.event as keyof ReportLabels['events']] ?? entry.event;
    const extra = detail(s, entry, job.logs ?? []);
    ensure(s, 14);
    const y = doc.y;
    const tone = entry.event === 'job_failed' ? COLORS.bad : entry.event === 'job_completed' ? COLORS.ok : COLORS.text;
    doc.font('Sans').fontSize(9).fillColor(COLORS.muted).text(stamp, left, y, { width: 110, align: 'right' });
    doc.font('Sans').fontSize(9).fillColor(tone).text(extra ? `${name} — ${extra}` : name, left + 120, y, { width: width - 120 });
  }
  doc.x = left;
}
