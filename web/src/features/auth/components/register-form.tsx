import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';

import { InvitationNotice } from '@/components/invitation-notice';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths, safeRedirect } from '@/config/paths';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

export const PASSWORD_MIN_LENGTH = 8;

export interface RegisterValues {
  email: string;
  password: string;
  confirm: string;
  fullName: string;
}

type RegisterErrors = Partial<Record<keyof RegisterValues, string>>;

export function validateRegister(values: RegisterValues): RegisterErrors {
  const errors: RegisterErrors = {};
  if (!values.email.trim()) errors.email = 'validation.emailRequired';
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email.trim())) errors.email = 'validation.emailInvalid';
  if (!values.password) errors.password = 'validation.passwordRequired';
  else if (values.password.length < PASSWORD_MIN_LENGTH) errors.password = 'validation.passwordMin';
  if (!values.confirm) errors.confirm = 'validation.confirmRequired';
  else if (values.confirm !== values.password) errors.confirm = 'errors.passwordMismatch';
  return errors;
}

export function RegisterForm() {
  const { t } = useTranslation();
  const { register } = useAuth();
  const navigate = useNavigate();
  // Where the person was going (an invitation's accept page, issue 54): after signing up they go on there.
  const [params] = useSearchParams();
  const redirectTo = safeRedirect(params.get('redirectTo'));
  const [values, setValues] = useState<RegisterValues>({ email: '', password: '', confirm: '', fullName: '' });
  const [errors, setErrors] = useState<RegisterErrors>({});
  /** A translation key (the spec's generic message) or the server's own reason. */
  const [formError, setFormError] = useState<{ key: string } | { text: string } | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const fillInvited = useCallback((invite: { email: string }) => setValues((v) => (v.email ? v : { ...v, email: invite.email })), []);

  const set = (key: keyof RegisterValues) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: event.target.value }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    // A new attempt starts clean: no banner from the previous one.
    setFormError(null);
    const found = validateRegister(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSubmitting(true);
    try {
      await register({ email: values.email, password: values.password, full_name: values.fullName });
      navigate(redirectTo ?? paths.app.dashboard.path, { replace: true });
    } catch (error) {
      const reason = serverReason(error);
      setFormError(reason ? { text: reason } : { key: 'errors.registerFailed' });
      setSubmitting(false);
    }
  };

  const err = (key: keyof RegisterValues) => (errors[key] ? t(errors[key], { min: PASSWORD_MIN_LENGTH }) : undefined);

  return (
    <form className="form-stack" onSubmit={onSubmit} noValidate aria-label={t('auth.register.title')}>
      <InvitationNotice redirectTo={redirectTo} mode="register" onInvite={fillInvited} />
      <Alert tone="info">{t('auth.register.creditsNotice')}</Alert>
      {formError ? <Alert tone="error">{'text' in formError ? formError.text : t(formError.key)}</Alert> : null}
      <Field label={t('auth.fullName')} optional={t('common.optional')} error={err('fullName')}>
        {(props) => <input {...props} className="input" name="full_name" autoComplete="name" value={values.fullName} onChange={set('fullName')} disabled={submitting} />}
      </Field>
      <Field label={t('auth.email')} error={err('email')}>
        {(props) => <input {...props} className="input" type="email" name="email" autoComplete="email" value={values.email} onChange={set('email')} required disabled={submitting} />}
      </Field>
      <Field label={t('auth.password')} hint={t('auth.register.passwordHint', { min: PASSWORD_MIN_LENGTH })} error={err('password')}>
        {(props) => (
          <input {...props} className="input" type="password" name="password" autoComplete="new-password" value={values.password} onChange={set('password')} required minLength={PASSWORD_MIN_LENGTH} disabled={submitting} />
        )}
      </Field>
      <Field label={t('auth.confirmPassword')} error={err('confirm')}>
        {(props) => (
          <input {...props} className="input" type="password" name="confirm" autoComplete="new-password" value={values.confirm} onChange={set('confirm')} required disabled={submitting} />
        )}
      </Field>
      <Button type="submit" size="lg" loading={submitting} className="btn-block">
        {submitting ? t('auth.register.submitting') : t('auth.register.submit')}
      </Button>
      <p className="form-foot">
        {t('auth.register.haveAccount')} <Link to={paths.auth.login.getHref(redirectTo)}>{t('auth.register.loginLink')}</Link>
      </p>
    </form>
  );
}
