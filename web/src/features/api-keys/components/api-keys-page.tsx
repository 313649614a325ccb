import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { ConfirmDialog } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { API_KEY_NAME_MAX, useCreateApiKey, validateKeyName } from '@/features/api-keys/api/create-api-key';
import { useDeleteApiKey } from '@/features/api-keys/api/delete-api-key';
import { useApiKeys } from '@/features/api-keys/api/get-api-keys';
import { QuotaCard } from '@/features/api-keys/components/quota-card';
import { formatDateTime } from '@/lib/format';
import type { ApiKey, NewApiKey } from '@/types/api';

function NewTokenBanner({ created, onHide }: { created: NewApiKey; onHide: () => void }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied(true);
    } catch {
      /* clipboard failures are silent (spec section 8) */
    }
  };
  return (
    <div className="token-banner" role="status">
      <div>
        <strong>{t('apiKeys.newTokenTitle', { name: created.name })}</strong>
        <p className="small">{t('apiKeys.newTokenHint')}</p>
      </div>
      <code className="token-value" aria-label={t('apiKeys.tokenLabel')}>
        {created.token}
      </code>
      <div className="token-actions">
        <Button size="sm" onClick={() => void copy()}>
          {copied ? t('apiKeys.copied') : t('apiKeys.copy')}
        </Button>
        <Button size="sm" variant="secondary" onClick={onHide}>
          {t('apiKeys.hide')}
        </Button>
      </div>
    </div>
  );
}

/** `webhooksSlot`: where the route puts the webhooks card (another feature). */
export function ApiKeysPage({ webhooksSlot }: { webhooksSlot?: ReactNode } = {}) {
  const { t, i18n } = useTranslation();
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const remove = useDeleteApiKey();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [createFailed, setCreateFailed] = useState(false);
  const [deleteFailed, setDeleteFailed] = useState(false);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [toDelete, setToDelete] = useState<ApiKey | null>(null);

  const onCreate = async (event: FormEvent) => {
    event.preventDefault();
    const error = validateKeyName(name);
    setNameError(error);
    if (error) return;
    setCreateFailed(false);
    try {
      const key = await create.mutateAsync(name);
      setCreated(key);
      setName('');
    } catch {
      setCreateFailed(true);
    }
  };

  const onDelete = async () => {
    if (!toDelete) return;
    setDeleteFailed(false);
    try {
      await remove.mutateAsync(toDelete.id);
    } catch {
      setDeleteFailed(true);
    } finally {
      setToDelete(null);
    }
  };

  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1 className="page-title">{t('apiKeys.title')}</h1>
          <p className="muted">{t('apiKeys.subtitle')}</p>
        </div>
      </header>
      <div className="stack-lg">
        <QuotaCard />
        <Card title={t('apiKeys.listTitle')} titleId="keys-title">
          {created ? <NewTokenBanner created={created} onHide={() => setCreated(null)} /> : null}
          <form className="key-form" onSubmit={onCreate} noValidate aria-label={t('apiKeys.createTitle')}>
            <Field label={t('apiKeys.name')} hint={t('apiKeys.nameHint', { max: API_KEY_NAME_MAX })} error={nameError ? t(nameError, { max: API_KEY_NAME_MAX }) : undefined} className="grow">
              {(props) => <input {...props} className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder={t('apiKeys.namePlaceholder')} />}
            </Field>
            <Button type="submit" loading={create.isPending}>
              {t('apiKeys.create')}
            </Button>
          </form>
          {createFailed ? <Alert tone="error">{t('errors.apiKeyCreate')}</Alert> : null}
          {deleteFailed ? <Alert tone="error">{t('errors.apiKeyDelete')}</Alert> : null}
          {keys.isError ? <Alert tone="error">{t('errors.apiKeysLoad')}</Alert> : null}
          {keys.isPending ? (
            <Spinner label={t('common.loading')} />
          ) : (keys.data ?? []).length === 0 ? (
            <p className="muted">{t('apiKeys.empty')}</p>
          ) : (
            <div className="table-wrap">
              <table className="table table-stack">
                <thead>
                  <tr>
                    <th scope="col">{t('apiKeys.name')}</th>
                    <th scope="col">{t('apiKeys.prefix')}</th>
                    <th scope="col">{t('apiKeys.createdAt')}</th>
                    <th scope="col">{t('apiKeys.lastUsed')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('common.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {(keys.data ?? []).map((key) => (
                    <tr key={key.id}>
                      <th scope="row">{key.name}</th>
                      <td data-label={t('apiKeys.prefix')}>
                        <code>{key.token_prefix}…</code>
                      </td>
                      <td data-label={t('apiKeys.createdAt')}>{formatDateTime(key.created_at, i18n.language)}</td>
                      <td data-label={t('apiKeys.lastUsed')}>{key.last_used_at ? formatDateTime(key.last_used_at, i18n.language) : t('apiKeys.neverUsed')}</td>
                      <td className="right cell-action">
                        <Button size="sm" variant="danger" onClick={() => setToDelete(key)} aria-label={t('apiKeys.deleteNamed', { name: key.name })}>
                          {t('common.delete')}
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
      </div>
      {webhooksSlot}
      <ConfirmDialog
        open={toDelete !== null}
        title={t('apiKeys.confirmDeleteTitle')}
        message={t('apiKeys.confirmDelete', { name: toDelete?.name ?? '' })}
        confirmLabel={t('common.delete')}
        cancelLabel={t('common.back')}
        closeLabel={t('common.close')}
        busy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void onDelete()}
      />
    </div>
  );
}
