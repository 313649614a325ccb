import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { useAdminMail, useOutbox, type AdminMailAction, type OutboxMail } from '@/features/admin/api/outbox';
import { formatDateTime } from '@/lib/format';

/** A link's single-use token never shows here, whatever the text holds: the link is the person's, not the admin's. */
export function withoutTokens(text: string): string {
  return text.replace(/([?&]token=)[^\s&)>"]+/g, '$1…').replace(/(\/invite\/)[^\s/?#)>"]+/g, '$1…');
}

/** What an admin can do for the person a mail was for. */
const ACTIONS: Record<string, AdminMailAction[]> = {
  email_verification: ['verify', 'email_verification'],
  password_reset: ['password_reset'],
};

function MailActions({ mail, onDone }: { mail: OutboxMail; onDone: (text: string, ok: boolean) => void }) {
  const { t } = useTranslation();
  const send = useAdminMail();
  const actions = ACTIONS[mail.kind] ?? [];
  if (actions.length === 0) return null;
  const run = async (action: AdminMailAction) => {
    try {
      await send.mutateAsync({ email: mail.to, action });
      onDone(t(`admin.outbox.done.${action}`, { email: mail.to }), true);
    } catch {
      onDone(t('errors.actionFailed'), false);
    }
  };
  return (
    <div className="outbox-actions">
      {actions.map((action) => (
        <Button key={action} size="sm" variant={action === 'verify' ? 'secondary' : 'ghost'} disabled={send.isPending} onClick={() => void run(action)} aria-label={t(`admin.outbox.actionNamed.${action}`, { email: mail.to })}>
          {t(`admin.outbox.action.${action}`)}
        </Button>
      ))}
    </div>
  );
}

/** The mails Baret sent or, without a mail server, kept: so a person's "confirm your e-mail" or reset does not end nowhere (issue 40). */
export function OutboxSection() {
  const { t, i18n } = useTranslation();
  const outbox = useOutbox();
  const [notice, setNotice] = useState<{ text: string; ok: boolean } | null>(null);
  const mails = outbox.data ?? [];
  const kept = mails.some((m) => m.channel === 'log');
  return (
    <Card
      title={t('admin.outbox.title')}
      titleId="outbox-title"
      actions={
        <Button size="sm" variant="secondary" onClick={() => void outbox.refetch()} loading={outbox.isFetching}>
          {t('common.refresh')}
        </Button>
      }
      lead={t('admin.outbox.intro')}
      leadSmall
    >
      {kept ? <Alert tone="warning">{t('admin.outbox.noSmtp')}</Alert> : null}
      {outbox.isError ? <Alert tone="error">{t('admin.outbox.loadFailed')}</Alert> : null}
      {notice ? (
        <p className={notice.ok ? 'ok-text small' : 'field-error'} role="status">
          {notice.text}
        </p>
      ) : null}
      {outbox.isPending ? (
        <Spinner label={t('common.loading')} />
      ) : mails.length === 0 ? (
        <p className="muted small">{t('admin.outbox.empty')}</p>
      ) : (
        <ul className="inbox-list" aria-labelledby="outbox-title">
          {mails.map((mail) => (
            <li key={mail.id} className="inbox-item">
              <div className="inbox-head">
                <strong className="break">{mail.to}</strong>
                <time className="muted small" dateTime={mail.created_at}>
                  {formatDateTime(mail.created_at, i18n.language)}
                </time>
                <Badge tone="neutral">{t(`admin.outbox.kinds.${mail.kind}`, { defaultValue: mail.kind })}</Badge>
                {mail.channel === 'smtp' ? <Badge tone="success">{t('admin.outbox.sent')}</Badge> : <Badge tone="warning">{t('admin.outbox.notSent')}</Badge>}
              </div>
              <p className="inbox-subject">{mail.subject}</p>
              {mail.text ? (
                <details>
                  <summary className="small">{t('admin.outbox.showText')}</summary>
                  <p className="inbox-message">{withoutTokens(mail.text)}</p>
                </details>
              ) : null}
              <MailActions mail={mail} onDone={(text, ok) => setNotice({ text, ok })} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
