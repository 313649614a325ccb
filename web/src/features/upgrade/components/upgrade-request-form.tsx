import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { OrgManagersHint } from '@/components/org-managers';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { UPGRADE_MESSAGE_MAX, useRequestUpgrade, useUpgradeRequest, type UpgradeOrigin } from '@/features/upgrade/api/request-upgrade';
import { useAuth } from '@/lib/auth';
import { formatDateTime } from '@/lib/format';
import { useCurrentOrg } from '@/lib/org';

/** Shown only to logged-in users whose plan is not pro (case-insensitive). */
export function showsUpgradeForm(planName: string | null | undefined): boolean {
  return (planName ?? 'free').trim().toLowerCase() !== 'pro';
}

type FormState = 'idle' | 'loading' | 'success' | 'error';

export function UpgradeRequestForm({ origin }: { origin: UpgradeOrigin }) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const mutation = useRequestUpgrade();
  const shown = user !== null && showsUpgradeForm(user.quota?.plan_name);
  const existing = useUpgradeRequest(shown);
  const [message, setMessage] = useState('');
  const [state, setState] = useState<FormState>('idle');
  const [tooLong, setTooLong] = useState(false);
  const orgMember = useCurrentOrg(user !== null).data?.role === 'member';

  if (!shown) return null;
  // A member's plan is the organisation's: its managers, not Baret's team, are the ones to ask.
  if (orgMember) return <OrgManagersHint text="plan" />;
  if (state !== 'success' && existing.data?.pending) {
    return (
      <Alert tone="info" title={t('upgrade.pendingTitle')}>
        {existing.data.requested_at ? t('upgrade.pendingSince', { date: formatDateTime(existing.data.requested_at, i18n.language) }) : t('upgrade.pending')}
      </Alert>
    );
  }

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (state === 'loading' || state === 'success') return;
    const over = message.trim().length > UPGRADE_MESSAGE_MAX;
    setTooLong(over);
    if (over) return;
    setState('loading');
    try {
      await mutation.mutateAsync({ origin, message });
      setState('success');
    } catch {
      setState('error');
    }
  };
  const locked = state === 'loading' || state === 'success';

  return (
    <form className="form-stack upgrade-form" onSubmit={onSubmit} noValidate aria-label={t('upgrade.title')}>
      {state === 'success' ? <Alert tone="success">{t('upgrade.success')}</Alert> : null}
      {state === 'error' ? <Alert tone="error">{t('errors.tryLater')}</Alert> : null}
      <Field label={t('upgrade.message')} optional={t('common.optional')} hint={t('common.charCount', { count: message.length, max: UPGRADE_MESSAGE_MAX })} error={tooLong ? t('validation.messageMax', { max: UPGRADE_MESSAGE_MAX }) : undefined}>
        {(props) => (
          <textarea {...props} className="input textarea" rows={4} maxLength={UPGRADE_MESSAGE_MAX} value={message} onChange={(e) => setMessage(e.target.value)} placeholder={t('upgrade.placeholder')} disabled={locked} />
        )}
      </Field>
      <Button type="submit" loading={state === 'loading'} disabled={state === 'success'}>
        {state === 'success' ? t('upgrade.sent') : t('upgrade.submit')}
      </Button>
    </form>
  );
}
