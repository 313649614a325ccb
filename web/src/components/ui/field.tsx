import { useId, type ReactNode } from 'react';

export interface FieldRenderProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

/** Label, control, hint and error wired together for assistive technology. */
export function Field({
  label,
  hint,
  error,
  optional,
  children,
  className,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  optional?: ReactNode;
  children: (props: FieldRenderProps) => ReactNode;
  className?: string;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', error ? 'field-invalid' : null, className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className="field-label">
        {label}
        {optional ? <span className="field-optional"> {optional}</span> : null}
      </label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A select of named items — an organisation's sites or crews, job types — with a first option for
 * "all" or "none" (the empty value, given to `onChange` as null).
 */
export function UnitSelect({
  label,
  emptyLabel,
  value,
  options,
  onChange,
}: {
  label: ReactNode;
  emptyLabel: string;
  value: string | null | undefined;
  options: ReadonlyArray<{ id: string; name: string }>;
  onChange: (value: string | null) => void;
}) {
  return (
    <Field label={label}>
      {(props) => (
        <select {...props} className="input" value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
          <option value="">{emptyLabel}</option>
          {options.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
