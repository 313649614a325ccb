import { type ReactNode } from 'react';

import { Card } from '@/components/ui/card';

/** The centred card that frames the login and registration forms. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <section className="auth-wrap">
      <Card as="div" className="auth-card">
        <h1 className="auth-title">{title}</h1>
        <p className="muted">{subtitle}</p>
        {children}
      </Card>
    </section>
  );
}
