import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useAcceptInvite, useInvitePreview } from '@/features/organisation/api/accept-invite';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { planHasReports, planLabel } from '@/lib/plans';

/** /invite/:token — what the invitation is for, and the button that accepts it. */
export function InvitePage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const preview = useInvitePreview(token);
  const accept = useAcceptInvite(token);
  const ownPlan = useAuth().user?.quota?.plan_name;
  return (
    <div className="page">
      <header className="page-head">
        <h1 className="page-title">{t('org.invitation')}</h1>
      </header>
      <Card>
        {preview.isPending ? <Spinner label={t('common.loading')} /> : null}
        {preview.isError ? <Alert tone="error">{serverReason(preview.error) ?? t('org.failed')}</Alert> : null}
        {preview.data ? (
          <>
            <p>{t('org.invitedTo', { org: preview.data.org_name, role: t(`org.role_${preview.data.role}`), email: preview.data.email })}</p>
            <Alert tone={planHasReports(ownPlan) ? 'warning' : 'info'} title={t('org.joinPlanTitle')}>
              <p>{t('org.joinPlan', { org: preview.data.org_name })}</p>
              <p>{t('org.joinOwnPlan', { plan: planLabel(t, ownPlan) })}</p>
              <p>{t('org.joinAsk')}</p>
            </Alert>
            {accept.isError ? <Alert tone="error">{serverReason(accept.error) ?? t('org.failed')}</Alert> : null}
            <Button loading={accept.isPending} onClick={() => accept.mutate(undefined, { onSuccess: () => void navigate(paths.app.organisation.getHref()) })}>
              {t('org.accept')}
            </Button>
          </>
        ) : null}
      </Card>
    </div>
  );
}
