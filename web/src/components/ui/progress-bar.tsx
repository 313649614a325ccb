/** `label` is shown above the bar; `name` (default: the label) is what a screen reader calls the bar. */
export function ProgressBar({ value, label, detail, name }: { value: number; label: string; detail?: string; name?: string }) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="progress">
      <div className="progress-head">
        <span>{label}</span>
        <span className="progress-detail">{detail}</span>
      </div>
      <div className="progress-track" role="progressbar" aria-label={name ?? label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={clamped} aria-valuetext={detail}>
        <div className="progress-fill" style={{ width: `${clamped}%` }} />
      </div>
    </div>
  );
}
