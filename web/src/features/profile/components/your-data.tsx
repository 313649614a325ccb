import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Card } from '@/components/ui/card';
import { api, serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { rememberAccountDeleted } from '@/lib/storage';

/** "Your data" on the profile page (issue 30): download everything Baret keeps, or erase the account. */
export function YourData() {
  const { t } = useTranslation();
  const { logout } = useAuth();
  const navigate = useNavigate();
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  async function download() {
    setDownloading(true);
    setDownloadError(null);
    try {
      const blob = await api.blob('/me/export', { timeoutMs: 10 * 60_000 });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `baret-export-${new Date().toISOString().slice(0, 10)}.zip`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      setDownloadError(serverReason(e) ?? t('yourData.downloadFailed'));
    } finally {
      setDownloading(false);
    }
  }

  async function erase(event: FormEvent) {
    event.preventDefault();
    if (!password) {
      setDeleteError(t('yourData.passwordRequired'));
      return;
    }
    setDeleting(true);
    setDeleteError(null);
    try {
      await api.delete('/me', { body: { password } });
      rememberAccountDeleted();
      logout();
      void navigate('/', { replace: true });
    } catch (e) {
      setDeleteError(serverReason(e) ?? t('yourData.deleteFailed'));
      setDeleting(false);
    }
  }

  return (
    <Card title={t('yourData.title')} titleId="your-data-title" lead={t('yourData.exportLead')}>
      {downloadError ? <Alert tone="error">{downloadError}</Alert> : null}
      <Button variant="secondary" loading={downloading} onClick={() => void download()}>
        {t('yourData.download')}
      </Button>
      <h3 className="card-subtitle">{t('yourData.deleteTitle')}</h3>
      {!confirming ? (
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          {t('yourData.delete')}
        </Button>
      ) : (
        <form className="form-stack" onSubmit={(e) => void erase(e)} noValidate aria-label={t('yourData.deleteTitle')}>
          <Alert tone="warning" title={t('yourData.warningTitle')}>
            {t('yourData.warning')}
          </Alert>
          {deleteError ? <Alert tone="error">{deleteError}</Alert> : null}
          <Field label={t('yourData.password')}>
            {(props) => (
              <input {...props} className="input" type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            )}
          </Field>
          <div className="form-actions">
            <Button type="submit" variant="danger" loading={deleting}>
              {t('yourData.confirmDelete')}
            </Button>
            <Button variant="ghost" onClick={() => (setConfirming(false), setPassword(''), setDeleteError(null))}>
              {t('yourData.cancel')}
            </Button>
          </div>
        </form>
      )}
    </Card>
  );
}
