import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { useUpdateUserQuota } from '@/features/admin/api/update-user-quota';
import { LIMIT_FIELDS, PLAN_NAME_MAX, PRESETS, decideSave, draftFromQuota, isDirty, isValidLimit, isValidPlanName, type LimitField, type PresetName, type QuotaDraft } from '@/features/admin/model/quota-draft';
import { serverReason } from '@/lib/api-client';
import { PLAN_DEFINITIONS, limitsText } from '@/lib/plans';
import type { QuotaUpdate, UserQuotaRow } from '@/types/api';

const FIELD_KEYS: Record<LimitField, string> = { daily_limit: 'admin.quotas.daily', monthly_limit: 'admin.quotas.monthly', lifetime_limit: 'admin.quotas.lifetime' };

/**
 * `onDelete` is absent for the admin's own row: nobody deletes their own account from the table.
 * An organisation's row (issue 28) is edited the same way: `saveOrg` sends its changes, and it has
 * no delete button.
 */
export function QuotaEditor({
  row,
  onDelete,
  saveOrg,
}: {
  row: UserQuotaRow;
  onDelete?: (row: UserQuotaRow) => void;
  saveOrg?: (changes: QuotaUpdate) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const baseId = useId();
  const update = useUpdateUserQuota();
  const [draft, setDraft] = useState<QuotaDraft>(() => draftFromQuota(row.quota));
  const [blockedInvalid, setBlockedInvalid] = useState(false);
  const [status, setStatus] = useState<'idle' | 'saved' | 'failed'>('idle');
  /** Why the server refused the last save (its problem's detail names the field), when it said. */
  const [refusal, setRefusal] = useState<string | null>(null);
  // A new server value (after a save or refresh) becomes the new draft.
  const serverKey = JSON.stringify(row.quota);
  const [seenServer, setSeenServer] = useState(serverKey);
  if (seenServer !== serverKey) {
    setSeenServer(serverKey);
    setDraft(draftFromQuota(row.quota));
  }
  const dirty = isDirty(row.quota, draft);
  const planInvalid = !isValidPlanName(draft.plan_name);
  const who = row.full_name ? `${row.full_name} (${row.email})` : row.email;

  const set = (field: keyof QuotaDraft, value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setStatus('idle');
    setRefusal(null);
    setBlockedInvalid(false);
  };
  const applyPreset = (name: PresetName) => {
    setDraft({ ...PRESETS[name] });
    setStatus('idle');
    setBlockedInvalid(false);
  };
  const reset = () => {
    setDraft(draftFromQuota(row.quota));
    setStatus('idle');
    setBlockedInvalid(false);
  };
  const save = async () => {
    const decision = decideSave(row.quota, draft);
    if (decision.kind === 'invalid') {
      setBlockedInvalid(true);
      return;
    }
    if (decision.kind === 'unchanged') return;
    try {
      if (saveOrg) await saveOrg(decision.changes);
      else await update.mutateAsync({ userId: row.user_id, changes: decision.changes });
      setStatus('saved');
    } catch (error) {
      setRefusal(serverReason(error));
      setStatus('failed');
    }
  };

  return (
    <li className="quota-row">
      <div className="quota-user">
        <div className="quota-user-name">{row.full_name || row.email}</div>
        {row.full_name ? <div className="muted small break">{row.email}</div> : null}
        <div className="muted small">
          {t('admin.quotas.used', { daily: row.quota.daily_used ?? 0, monthly: row.quota.monthly_used ?? 0, lifetime: row.quota.lifetime_used ?? 0 })}
        </div>
        {row.quota.can_analyze === false ? <Badge tone="danger">{t('admin.quotas.blocked')}</Badge> : null}
      </div>
      <div className="quota-fields">
        <div className={planInvalid ? 'field field-invalid' : 'field'}>
          <label className="field-label" htmlFor={`${baseId}-plan`}>
            {t('admin.quotas.plan')}
          </label>
          <input
            id={`${baseId}-plan`}
            className="input"
            list="plan-names"
            value={draft.plan_name}
            aria-label={t('admin.quotas.planFor', { who })}
            aria-invalid={planInvalid || undefined}
            aria-describedby={planInvalid ? `${baseId}-plan-hint` : undefined}
            onChange={(e) => set('plan_name', e.target.value)}
          />
          {planInvalid ? (
            <p id={`${baseId}-plan-hint`} className="field-error">
              {t('admin.quotas.planTooLong', { max: PLAN_NAME_MAX })}
            </p>
          ) : null}
        </div>
        {LIMIT_FIELDS.map((field) => {
          const invalid = !isValidLimit(draft[field]);
          const id = `${baseId}-${field}`;
          return (
            <div key={field} className={invalid ? 'field field-invalid' : 'field'}>
              <label className="field-label" htmlFor={id}>
                {t(FIELD_KEYS[field])}
              </label>
              <input
                id={id}
                className="input"
                inputMode="numeric"
                value={draft[field]}
                placeholder={t('admin.quotas.unlimitedPlaceholder')}
                aria-label={t('admin.quotas.limitFor', { field: t(FIELD_KEYS[field]), who })}
                aria-invalid={invalid || undefined}
                aria-describedby={invalid ? `${id}-hint` : undefined}
                onChange={(e) => set(field, e.target.value)}
              />
              {invalid ? (
                <p id={`${id}-hint`} className="field-error">
                  {t('admin.quotas.invalidHint')}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
      <div className="quota-actions">
        <div className="preset-buttons" role="group" aria-label={t('admin.quotas.presets')}>
          {(['free', 'pro'] as const).map((id) => (
            <Button key={id} size="sm" variant="ghost" onClick={() => applyPreset(id)}>
              {t('plans.preset', { plan: t(`plans.${id}`), limits: limitsText(t, PLAN_DEFINITIONS[id].limits) })}
            </Button>
          ))}
        </div>
        <div className="save-buttons">
          <Button size="sm" variant="secondary" onClick={reset} disabled={!dirty}>
            {t('admin.quotas.reset')}
          </Button>
          <Button size="sm" onClick={() => void save()} disabled={!dirty} loading={update.isPending}>
            {t('admin.quotas.save')}
          </Button>
          {saveOrg ? null : onDelete ? (
            <Button size="sm" variant="danger" onClick={() => onDelete(row)} aria-label={t('admin.quotas.deleteUserNamed', { who })}>
              {t('admin.quotas.deleteUser')}
            </Button>
          ) : (
            <Badge tone="neutral">{t('admin.quotas.you')}</Badge>
          )}
        </div>
      </div>
      {blockedInvalid ? (
        <Alert tone="error">{LIMIT_FIELDS.some((field) => !isValidLimit(draft[field])) ? t('admin.quotas.invalidSave') : t('admin.quotas.planTooLong', { max: PLAN_NAME_MAX })}</Alert>
      ) : null}
      {status === 'failed' ? <Alert tone="error">{refusal ? t('errors.quotaUpdateRefused', { reason: refusal }) : t('errors.quotaUpdate')}</Alert> : null}
      {status === 'saved' ? <p className="ok-text small" role="status">{t('admin.quotas.saved')}</p> : null}
    </li>
  );
}
