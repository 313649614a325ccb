import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import {
  CHANNELS,
  NOTICE_KINDS,
  currentPushSubscription,
  disablePush,
  enablePush,
  pushSupported,
  usePreferences,
  useUpdatePreferences,
  type Channel,
  type NoticeKind,
} from '@/features/notifications/api/notifications';

/** Profile section: which notifications come on which channel, and push on this device. */
export function NotificationPreferences() {
  const { t, i18n } = useTranslation();
  const { data } = usePreferences();
  const update = useUpdatePreferences();
  const [push, setPush] = useState<'unknown' | 'on' | 'off' | 'unsupported' | 'denied'>(() => (pushSupported() ? 'unknown' : 'unsupported'));
  const [busy, setBusy] = useState(false);
  const lang = i18n.language.startsWith('en') ? 'en' : 'tr';

  useEffect(() => {
    if (!pushSupported()) return;
    void currentPushSubscription().then((s) => setPush(s ? 'on' : Notification.permission === 'denied' ? 'denied' : 'off'));
  }, []);

  // Mails and pushes follow the language the app is used in.
  useEffect(() => {
    if (data && data.language !== lang && !update.isPending) update.mutate({ language: lang });
  }, [data, lang, update]);

  const toggle = (kind: NoticeKind, channel: Channel, on: boolean) => update.mutate({ preferences: { [kind]: { [channel]: on } } });

  const onPush = async () => {
    setBusy(true);
    try {
      if (push === 'on') {
        await disablePush();
        setPush('off');
      } else setPush((await enablePush()) ? 'on' : Notification.permission === 'denied' ? 'denied' : 'off');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card className="profile-notifications" title={t('notifications.preferencesTitle')} titleId="notifications-title" lead={t('notifications.preferencesLead')}>
      {data ? (
        <table className="prefs-table">
          <thead>
            <tr>
              <th scope="col">{t('notifications.kind')}</th>
              {CHANNELS.map((c) => (
                <th key={c} scope="col">
                  {t(`notifications.channels.${c}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {NOTICE_KINDS.map((k) => (
              <tr key={k}>
                <th scope="row">{t(`notifications.kinds.${k}`)}</th>
                {CHANNELS.map((c) => (
                  <td key={c}>
                    <input
                      type="checkbox"
                      checked={data.preferences[k][c]}
                      onChange={(e) => toggle(k, c, e.target.checked)}
                      aria-label={`${t(`notifications.kinds.${k}`)} — ${t(`notifications.channels.${c}`)}`}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {update.isError ? <Alert tone="error">{t('notifications.saveFailed')}</Alert> : null}
      <div className="push-row">
        {push === 'unsupported' ? (
          <p className="muted">{t('notifications.pushUnsupported')}</p>
        ) : push === 'denied' ? (
          <p className="muted">{t('notifications.pushDenied')}</p>
        ) : (
          <Button variant="secondary" onClick={() => void onPush()} loading={busy} disabled={push === 'unknown'}>
            {push === 'on' ? t('notifications.pushDisable') : t('notifications.pushEnable')}
          </Button>
        )}
      </div>
    </Card>
  );
}
