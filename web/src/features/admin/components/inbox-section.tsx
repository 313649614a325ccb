import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { useInbox, useMarkHandled, type InboxItem } from '@/features/admin/api/inbox';
import { formatDateTime } from '@/lib/format';

function InboxList({ kind }: { kind: InboxItem['kind'] }) {
  const { t, i18n } = useTranslation();
  const inbox = useInbox(kind);
  const mark = useMarkHandled();
  const [failed, setFailed] = useState(false);
  const titleId = `inbox-${kind}-title`;

  const toggle = async (item: InboxItem) => {
    setFailed(false);
    try {
      await mark.mutateAsync({ id: item.id, handled: !item.handled });
    } catch {
      setFailed(true);
    }
  };

  return (
    <Card
      title={
        <>
          {t(`admin.inbox.${kind}.title`)} {inbox.data ? <Badge tone={inbox.data.some((i) => !i.handled) ? 'warning' : 'neutral'}>{inbox.data.filter((i) => !i.handled).length}</Badge> : null}
        </>
      }
      titleId={titleId}
      actions={
        <Button size="sm" variant="secondary" onClick={() => void inbox.refetch()} loading={inbox.isFetching}>
          {t('common.refresh')}
        </Button>
      }
    >
      {inbox.isError ? <Alert tone="error">{t('admin.inbox.loadFailed')}</Alert> : null}
      {failed ? <Alert tone="error">{t('errors.actionFailed')}</Alert> : null}
      {inbox.isPending ? (
        <Spinner label={t('common.loading')} />
      ) : inbox.data && inbox.data.length === 0 ? (
        <p className="muted small">{t(`admin.inbox.${kind}.empty`)}</p>
      ) : (
        <ul className="inbox-list" aria-labelledby={titleId}>
          {(inbox.data ?? []).map((item) => (
            <li key={item.id} className={item.handled ? 'inbox-item handled' : 'inbox-item'}>
              <div className="inbox-head">
                <strong className="break">{item.name ? `${item.name} · ${item.email}` : item.email}</strong>
                <time className="muted small" dateTime={item.created_at}>
                  {formatDateTime(item.created_at, i18n.language)}
                </time>
                {item.handled ? <Badge tone="success">{t('admin.inbox.handled')}</Badge> : <Badge tone="warning">{t('admin.inbox.open')}</Badge>}
              </div>
              {item.subject ? <p className="inbox-subject">{item.subject}</p> : null}
              {item.origin ? <p className="muted small">{t('admin.inbox.origin', { origin: t(`admin.inbox.origins.${item.origin}`, { defaultValue: item.origin }) })}</p> : null}
              <p className="inbox-message">{item.message ?? t('admin.inbox.noMessage')}</p>
              <Button
                size="sm"
                variant={item.handled ? 'ghost' : 'secondary'}
                onClick={() => void toggle(item)}
                disabled={mark.isPending}
                aria-label={t(item.handled ? 'admin.inbox.reopenNamed' : 'admin.inbox.markNamed', { who: item.email })}
              >
                {t(item.handled ? 'admin.inbox.reopen' : 'admin.inbox.mark')}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** Upgrade requests and contact messages sent to the team, newest first, each with a handled mark. */
export function InboxSection() {
  return (
    <>
      <InboxList kind="upgrade_request" />
      <InboxList kind="contact" />
    </>
  );
}
