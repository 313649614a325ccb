import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { inviteTokenOf, useInvitePreview, type InvitePreview } from '@/lib/invites';

/**
 * On the login and sign-up pages reached from an invitation link (`redirectTo=/invite/:token`): which
 * organisation invites the person, as what, and at which address, so the invitation is not lost on
 * the way (issue 54). `onInvite` (a stable callback) receives the invitation once it is read
 * (the forms fill in the invited address).
 */
export function InvitationNotice({ redirectTo, mode, onInvite }: { redirectTo: string | null; mode: 'login' | 'register'; onInvite?: (invite: InvitePreview) => void }) {
  const { t } = useTranslation();
  const preview = useInvitePreview(inviteTokenOf(redirectTo));
  useEffect(() => {
    if (preview.data) onInvite?.(preview.data);
  }, [preview.data, onInvite]);
  if (!preview.data) return null;
  const invite: InvitePreview = preview.data;
  return (
    <Alert tone="info" title={t('auth.invitation.title', { org: invite.org_name })}>
      <p>{t('org.invitedTo', { org: invite.org_name, role: t(`org.role_${invite.role}`), email: invite.email })}</p>
      <p>{t(mode === 'login' ? 'auth.invitation.login' : 'auth.invitation.register', { email: invite.email })}</p>
    </Alert>
  );
}
