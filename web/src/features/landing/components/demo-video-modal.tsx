import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';

export function DemoVideoModal({ open, url, onClose }: { open: boolean; url: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [failed, setFailed] = useState(false);
  const playable = url !== null && !failed;
  return (
    <Modal
      open={open}
      onClose={onClose}
      title={t('landing.demo.modalTitle')}
      closeLabel={t('landing.demo.close')}
      size="lg"
      footer={
        <Button variant="secondary" onClick={onClose}>
          {t('landing.demo.close')}
        </Button>
      }
    >
      <p className="muted">{t('landing.demo.modalDescription')}</p>
      {playable ? (
        <video className="demo-video" src={url} controls autoPlay playsInline onError={() => setFailed(true)} aria-label={t('landing.demo.modalTitle')} />
      ) : (
        <p className="helper-box">{t('landing.demo.helper')}</p>
      )}
    </Modal>
  );
}
