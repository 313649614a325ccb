/**
 * How Baret writes a moment in a video and a moment in the world (issue 54).
 *
 * A moment in the video is what a video player shows: whole seconds, cut down (never rounded up, so
 * the frame shown is on screen at that time), `m:ss`, `h:mm:ss` past an hour. The web app's
 * `clockTime` (web/src/lib/video-time.ts) is the same rule; tests/video-time.unit.spec.ts holds
 * both to one table of cases.
 *
 * A moment in the world is written in a named time zone: an organisation's (IANA name, default
 * Europe/Istanbul), UTC for a job with no organisation.
 */

/** `70.9` → `1:10`, `3725` → `1:02:05`; negative or not a number → `0:00`. */
export function videoMoment(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The time zone of an organisation that never chose one. Baret's people are Turkish electricity
 * distribution crews first: Turkey has one zone, UTC+3 all year, so this is right for them without
 * a setting; a manager elsewhere chooses theirs once, and every time shown names its zone.
 */
export const DEFAULT_ORG_TIME_ZONE = 'Europe/Istanbul';

/** The time zone of a job recorded by a person with no organisation. */
export const NO_ORG_TIME_ZONE = 'UTC';

/** An IANA time zone name as Intl knows it ("europe/istanbul" → "Europe/Istanbul"), or null when it is none. */
export function canonicalTimeZone(name: string): string | null {
  // Names only: Intl would also take offsets ("+03:00") in newer engines, which are not a place's time.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** `29 Kas 2026 14:05 (Europe/Istanbul)` / `29 Nov 2026, 14:05 (Europe/Istanbul)`; the ISO text back when it is no date. */
export function zonedDateTime(iso: string, lang: 'tr' | 'en', timeZone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone, hour12: false }).format(d);
  return `${text} (${timeZone})`;
}

/** The time of day with seconds (`14:05:03`) in a zone, and the day (`2026-11-29`) it falls on there. */
export function zonedClock(iso: string, timeZone: string): { day: string; time: string } {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return { day: '', time: iso };
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}` };
}
