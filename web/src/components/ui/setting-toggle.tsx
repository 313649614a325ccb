import { useId, type ReactNode } from 'react';

/**
 * One setting that is on or off and saved as soon as it is changed (organisation privacy and
 * sign-in, the admins' account settings): the checkbox named by its label, an optional help line
 * that describes it, and a polite live region that announces `saved` once the change is stored
 * (the region is always there, so screen readers hear what appears in it).
 */
export function SettingToggle({
  label,
  help,
  checked,
  disabled,
  onChange,
  saved,
}: {
  label: ReactNode;
  help?: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
  /** What to announce once the change is saved; nothing while there is none. */
  saved?: ReactNode;
}) {
  const helpId = useId();
  return (
    <div>
      <label className="check-row">
        <input type="checkbox" checked={checked} disabled={disabled} aria-describedby={help ? helpId : undefined} onChange={(e) => onChange(e.target.checked)} />{' '}
        {label}
      </label>
      {help ? (
        <p id={helpId} className="muted small">
          {help}
        </p>
      ) : null}
      <div role="status">{saved ? <p className="muted">{saved}</p> : null}</div>
    </div>
  );
}
