import { useTranslation } from 'react-i18next';

import { AuthCard } from '@/features/auth/components/auth-layout';
import { RegisterForm } from '@/features/auth/components/register-form';

export function RegisterRoute() {
  const { t } = useTranslation();
  return (
    <AuthCard title={t('auth.register.title')} subtitle={t('auth.register.subtitle')}>
      <RegisterForm />
    </AuthCard>
  );
}
