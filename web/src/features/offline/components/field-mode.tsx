import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { applyUpdate, dismissUpdate, isUpdateWaiting, registerServiceWorker, subscribeUpdate } from '@/features/offline/pwa/register';

interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

const subscribeOnline = (listener: () => void) => {
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
};

/**
 * Field mode, app-wide: the service worker (with its update prompt), the install button where the
 * browser offers one, and an offline notice. (The upload queue's replay: analyze/offline.)
 */
export function FieldMode() {
  const { t } = useTranslation();
  const updateWaiting = useSyncExternalStore(subscribeUpdate, isUpdateWaiting, () => false);
  const online = useSyncExternalStore(subscribeOnline, () => navigator.onLine !== false, () => true);
  const [installEvent, setInstallEvent] = useState<BeforeInstallPromptEvent | null>(null);

  useEffect(() => registerServiceWorker(), []);
  useEffect(() => {
    const onPrompt = (event: Event) => {
      event.preventDefault();
      setInstallEvent(event as BeforeInstallPromptEvent);
    };
    const onInstalled = () => setInstallEvent(null);
    window.addEventListener('beforeinstallprompt', onPrompt);
    window.addEventListener('appinstalled', onInstalled);
    return () => {
      window.removeEventListener('beforeinstallprompt', onPrompt);
      window.removeEventListener('appinstalled', onInstalled);
    };
  }, []);

  const install = async () => {
    if (!installEvent) return;
    await installEvent.prompt();
    await installEvent.userChoice.catch(() => null);
    setInstallEvent(null);
  };

  if (!updateWaiting && !installEvent && online) return null;
  return (
    <div className="field-mode" style={{ position: 'fixed', insetInline: 12, bottom: 12, zIndex: 60, display: 'grid', gap: 8, justifyItems: 'end', pointerEvents: 'none' }}>
      {!online ? (
        <div className="alert alert-warning" role="status" style={{ pointerEvents: 'auto', maxWidth: 420 }}>
          <div className="alert-body">{t('offline.offlineNotice')}</div>
        </div>
      ) : null}
      {updateWaiting ? (
        <div className="alert alert-info" role="alert" style={{ pointerEvents: 'auto', maxWidth: 420 }}>
          <div className="alert-body">
            <strong className="alert-title">{t('offline.update.title')}</strong>
            <div>{t('offline.update.text')}</div>
          </div>
          <div className="alert-action" style={{ display: 'flex', gap: 8 }}>
            <Button size="sm" onClick={applyUpdate}>
              {t('offline.update.reload')}
            </Button>
            <Button size="sm" variant="ghost" onClick={dismissUpdate}>
              {t('offline.update.later')}
            </Button>
          </div>
        </div>
      ) : null}
      {installEvent ? (
        <Button variant="secondary" style={{ pointerEvents: 'auto' }} onClick={() => void install()}>
          {t('offline.install')}
        </Button>
      ) : null}
    </div>
  );
}
