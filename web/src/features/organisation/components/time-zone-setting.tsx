import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { useOrgSettings, useSaveOrgSettings } from '@/features/organisation/api/org-settings';
import { serverReason } from '@/lib/api-client';
import type { Org } from '@/types/api';

/** What the server answers before issue 54, and what every organisation that never chose one has. */
const DEFAULT_ZONE = 'Europe/Istanbul';

/** The zones this browser knows (IANA names), UTC first, with `current` among them whatever the browser says. */
function zones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...[...new Set([...known, current])].filter((z) => z !== 'UTC').sort()];
}

/** The time now in `zone` ("14:05"), so a manager sees they chose the right one; null when the browser cannot tell. */
function nowIn(zone: string, lang: string): string | null {
  try {
    return new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: zone }).format(new Date());
  } catch {
    return null;
  }
}

/**
 * The time zone the organisation's PDF reports write dates and times in (issue 54): every member
 * reads it, managers change it.
 */
export function TimeZoneSetting({ org }: { org: Org }) {
  const { t, i18n } = useTranslation();
  const settings = useOrgSettings(org.id);
  const save = useSaveOrgSettings(org.id);
  // What the manager picked; null: the stored zone.
  const [draft, setDraft] = useState<string | null>(null);
  if (!settings.data) return null;
  const stored = settings.data.time_zone ?? DEFAULT_ZONE;
  const zone = draft ?? stored;
  const manager = org.role === 'manager';
  const now = nowIn(zone, i18n.language);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ time_zone: zone }, { onSuccess: () => setDraft(null) });
  }

  return (
    <Card title={t('org.timeZone.title')} titleId="org-time-zone-title" lead={t('org.timeZone.lead', { zone: DEFAULT_ZONE })}>
      <form className="form-stack" onSubmit={submit} noValidate aria-label={t('org.timeZone.title')}>
        <Field label={t('org.timeZone.label')} hint={now ? t('org.timeZone.now', { time: now, zone }) : undefined}>
          {(props) => (
            <select {...props} className="input" name="time_zone" value={zone} disabled={!manager || save.isPending} onChange={(e) => setDraft(e.target.value)}>
              {zones(zone).map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          )}
        </Field>
        {manager ? (
          <div className="form-actions">
            <Button type="submit" loading={save.isPending} disabled={zone === stored}>
              {t('org.timeZone.save')}
            </Button>
          </div>
        ) : (
          <p className="muted small">{t('org.timeZone.managersOnly')}</p>
        )}
      </form>
      {save.isSuccess && draft === null ? <Alert tone="success">{t('org.timeZone.saved', { zone: stored })}</Alert> : null}
      {save.isError ? <Alert tone="error">{serverReason(save.error) ?? t('org.failed')}</Alert> : null}
    </Card>
  );
}
