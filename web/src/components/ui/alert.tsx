import { type ReactNode } from 'react';

export type AlertTone = 'error' | 'success' | 'info' | 'warning';

export function Alert({ tone = 'info', title, children, action }: { tone?: AlertTone; title?: ReactNode; children?: ReactNode; action?: ReactNode }) {
  const urgent = tone === 'error' || tone === 'warning';
  return (
    <div className={`alert alert-${tone}`} role={urgent ? 'alert' : 'status'}>
      <div className="alert-body">
        {title ? <strong className="alert-title">{title}</strong> : null}
        {children ? <div>{children}</div> : null}
      </div>
      {action ? <div className="alert-action">{action}</div> : null}
    </div>
  );
}
