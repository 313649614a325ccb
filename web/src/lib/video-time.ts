/**
 * A moment in a video as a video player shows it (issue 54): whole seconds, cut down, `m:ss`,
 * `h:mm:ss` past an hour — `70.4` → `1:10`, `3725` → `1:02:05`. The PDF report writes the same
 * with @baret/platform's `videoMoment`; tests/video-time.unit.spec.ts holds both to one table.
 * (No imports: that test loads this file from outside the web app.)
 */
export function clockTime(seconds: number): string {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
