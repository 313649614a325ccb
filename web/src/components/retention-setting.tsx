import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Card } from '@/components/ui/card';
import { api, serverReason } from '@/lib/api-client';

interface OrgRetention {
  days: number | null;
  effective_days: number;
  global_days: number;
}

/**
 * The retention period (issue 30): an organisation's own (`orgId`, its managers) or, without
 * `orgId`, the global default (admins). Jobs older than it are erased automatically.
 */
export function RetentionSetting({ orgId }: { orgId?: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const path = orgId ? `/orgs/${orgId}/retention` : '/admin/retention';
  const key = ['retention', orgId ?? 'global'];
  const current = useQuery({ queryKey: key, queryFn: () => api.get<OrgRetention | { days: number }>(path) });
  // What the person typed; null: the stored value.
  const [draft, setDraft] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const save = useMutation({
    mutationFn: (next: number | null) => (next === null ? api.delete<OrgRetention>(path) : api.put<OrgRetention>(path, { days: next })),
    onSuccess: (data) => {
      queryClient.setQueryData(key, data);
      setDraft(null);
      setMessage({ tone: 'success', text: t('retention.saved') });
    },
    onError: (e) => setMessage({ tone: 'error', text: serverReason(e) ?? t('retention.failed') }),
  });
  if (!current.data) return null;
  const globalDays = 'global_days' in current.data ? current.data.global_days : null;
  const days = draft ?? (current.data.days === null ? '' : String(current.data.days));

  function submit(event: FormEvent) {
    event.preventDefault();
    const n = Number(days);
    if (!Number.isInteger(n) || n < 1 || n > 36500) {
      setMessage({ tone: 'error', text: t('retention.invalid') });
      return;
    }
    save.mutate(n);
  }

  return (
    <Card title={t('retention.title')} titleId={`retention-title-${orgId ?? 'global'}`} lead={t('retention.lead')}>
      {globalDays !== null ? <p className="muted">{t('retention.global', { days: globalDays })}</p> : null}
      {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
      <form className="form-stack" onSubmit={submit} noValidate aria-label={t('retention.title')}>
        <Field label={t('retention.days')}>
          {(props) => <input {...props} className="input" type="number" inputMode="numeric" min={1} max={36500} name="days" value={days} placeholder={globalDays !== null ? String(globalDays) : undefined} onChange={(e) => setDraft(e.target.value)} />}
        </Field>
        <div className="form-actions">
          <Button type="submit" loading={save.isPending}>
            {t('retention.save')}
          </Button>
          {orgId && current.data.days !== null ? (
            <Button variant="ghost" disabled={save.isPending} onClick={() => save.mutate(null)}>
              {t('retention.useGlobal')}
            </Button>
          ) : null}
        </div>
      </form>
    </Card>
  );
}
