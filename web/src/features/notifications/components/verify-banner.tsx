import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { api } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { useMailDelivers } from '@/lib/mail';

/**
 * Shown in the dashboard while the account's address is not confirmed. Without a mail server no
 * link reaches anyone: the banner says so and whom to ask, and offers no "resend" (issue 54).
 */
export function VerifyBanner() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const delivers = useMailDelivers();
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  // Until it is known whether mail reaches anyone, no banner claims a link was sent.
  if (!user || user.email_verified !== false || delivers === undefined) return null;
  if (delivers === false) {
    return (
      <div className="verify-banner" role="status">
        <span className="break">{t('verify.noMail', { email: user.email })}</span>
      </div>
    );
  }
  const resend = async () => {
    setState('sending');
    try {
      await api.post('/auth/verify-email/resend');
      setState('sent');
    } catch {
      setState('failed');
    }
  };
  return (
    <div className="verify-banner" role="status">
      <span className="break">{t('verify.banner', { email: user.email })}</span>
      {state === 'sent' ? (
        <span className="muted">{t('verify.sent')}</span>
      ) : (
        <Button size="sm" variant="secondary" onClick={() => void resend()} loading={state === 'sending'}>
          {state === 'failed' ? t('verify.retry') : t('verify.resend')}
        </Button>
      )}
    </div>
  );
}
