import { useTranslation } from 'react-i18next';

import { AuthCard } from '@/features/auth/components/auth-layout';
import { ForgotPasswordForm, ResetPasswordForm, VerifyEmail } from '@/features/auth/components/account-recovery';

export function ForgotPasswordRoute() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t('recovery.forgotTitle')} subtitle={t('recovery.forgotLead')}>
      <ForgotPasswordForm />
    </AuthCard>
  );
}

export function ResetPasswordRoute() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t('recovery.resetTitle')} subtitle={t('recovery.resetLead')}>
      <ResetPasswordForm />
    </AuthCard>
  );
}

export function VerifyEmailRoute() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t('verify.title')} subtitle={t('verify.lead')}>
      <VerifyEmail />
    </AuthCard>
  );
}
