import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths, safeRedirect } from '@/config/paths';
import { useAuth } from '@/lib/auth';

type LoginErrors = { email?: string; password?: string };

export function validateLogin(email: string, password: string): LoginErrors {
  const errors: LoginErrors = {};
  if (!email.trim()) errors.email = 'validation.emailRequired';
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) errors.email = 'validation.emailInvalid';
  if (!password) errors.password = 'validation.passwordRequired';
  return errors;
}

export function LoginForm() {
  const { t } = useTranslation();
  const { login } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirectTo = safeRedirect(params.get('redirectTo'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<LoginErrors>({});
  // Error KEYS are stored, so a language switch re-localises a message already shown.
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const found = validateLogin(email, password);
    setErrors(found);
    if (found.email || found.password) return;
    setSubmitting(true);
    setFormError(null);
    try {
      await login({ email, password });
      navigate(redirectTo ?? paths.app.dashboard.path, { replace: true });
    } catch {
      setFormError('errors.loginFailed');
      setSubmitting(false);
    }
  };

  return (
    <form className="form-stack" onSubmit={onSubmit} noValidate aria-label={t('auth.login.title')}>
      {formError ? <Alert tone="error">{t(formError)}</Alert> : null}
      <Field label={t('auth.email')} error={errors.email ? t(errors.email) : undefined}>
        {(props) => <input {...props} className="input" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required disabled={submitting} />}
      </Field>
      <Field label={t('auth.password')} error={errors.password ? t(errors.password) : undefined}>
        {(props) => (
          <input {...props} className="input" type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required disabled={submitting} />
        )}
      </Field>
      <p className="form-aside">
        <Link to={paths.auth.forgotPassword.path}>{t('recovery.forgotLink')}</Link>
      </p>
      <Button type="submit" size="lg" loading={submitting} className="btn-block">
        {submitting ? t('auth.login.submitting') : t('auth.login.submit')}
      </Button>
      <p className="form-foot">
        {t('auth.login.noAccount')} <Link to={paths.auth.register.getHref(redirectTo)}>{t('auth.login.registerLink')}</Link>
      </p>
    </form>
  );
}
