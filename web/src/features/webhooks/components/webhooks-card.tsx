import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { WEBHOOK_EVENTS, useCreateWebhook, useDeleteWebhook, useWebhooks, type WebhookEvent } from '@/features/webhooks/api/webhooks';
import { serverReason } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';

/** Webhooks on the API page (issue 40: they had no UI): the list, a form to add one, its signing secret shown once. */
export function WebhooksCard() {
  const { t, i18n } = useTranslation();
  const hooks = useWebhooks();
  const create = useCreateWebhook();
  const remove = useDeleteWebhook();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['job.completed', 'job.failed']);
  const [secret, setSecret] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSecret(null);
    create.mutate({ url: url.trim(), events }, { onSuccess: (made) => (setSecret(made.secret), setUrl('')) });
  };
  const toggle = (event: WebhookEvent, on: boolean) => setEvents((list) => (on ? [...list, event] : list.filter((e) => e !== event)));
  return (
    <Card title={t('webhooks.title')} titleId="webhooks-title" lead={t('webhooks.lead')}>
      <form onSubmit={submit} className="form-stack">
        <Field label={t('webhooks.url')} hint={t('webhooks.urlHint')}>
          {(p) => <input {...p} type="url" className="input" inputMode="url" value={url} required maxLength={2048} placeholder="https://" onChange={(e) => setUrl(e.target.value)} />}
        </Field>
        <fieldset>
          <legend className="field-label">{t('webhooks.events')}</legend>
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} className="checkbox">
              <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.target.checked)} />
              <span>{t(`webhooks.event.${event}`)}</span>
            </label>
          ))}
        </fieldset>
        {create.isError ? <Alert tone="error">{serverReason(create.error) ?? t('webhooks.failed')}</Alert> : null}
        <Button type="submit" loading={create.isPending} disabled={!url.trim() || events.length === 0}>
          {t('webhooks.add')}
        </Button>
      </form>
      {secret ? (
        <Alert tone="success" title={t('webhooks.secretTitle')}>
          <p>{t('webhooks.secretText')}</p>
          <code className="token-value" data-testid="webhook-secret">
            {secret}
          </code>
        </Alert>
      ) : null}
      {hooks.isPending ? <Spinner label={t('common.loading')} /> : null}
      {hooks.isError ? <Alert tone="error">{t('webhooks.loadFailed')}</Alert> : null}
      {hooks.data && hooks.data.length === 0 ? <p className="muted">{t('webhooks.empty')}</p> : null}
      {hooks.data && hooks.data.length > 0 ? (
        <ul className="plain-list" aria-label={t('webhooks.title')}>
          {hooks.data.map((hook) => (
            <li key={hook.id} className="unit-row">
              <span className="break">
                <strong>{hook.url}</strong>
                <span className="muted small">
                  {' · '}
                  {hook.events.map((e) => t(`webhooks.event.${e}`)).join(', ')} · {formatDateTime(hook.created_at, i18n.language)}
                </span>{' '}
                {hook.disabled_at ? <Badge tone="danger">{t('webhooks.disabled')}</Badge> : hook.failing_since ? <Badge tone="warning">{t('webhooks.failing')}</Badge> : null}
              </span>
              <Button size="sm" variant="ghost" onClick={() => remove.mutate(hook.id)} aria-label={t('webhooks.deleteNamed', { url: hook.url })}>
                {t('common.delete')}
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}
