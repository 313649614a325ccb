import { useQuery } from '@tanstack/react-query';
import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';

import { InvitationNotice } from '@/components/invitation-notice';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths, safeRedirect } from '@/config/paths';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { getSsoStatus, startSso } from '@/lib/auth/sso';

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
  const fillInvited = useCallback((invite: { email: string }) => setEmail((current) => current || invite.email), []);
  // A refusal the server explained (password login off, a failed company sign-in), already in the UI's language.
  const location = useLocation();
  const [reason, setReason] = useState<string | null>(() => {
    const state = location.state as { ssoError?: unknown } | null;
    return typeof state?.ssoError === 'string' ? state.ssoError : null;
  });
  const [redirecting, setRedirecting] = useState(false);
  const sso = useQuery({ queryKey: ['auth', 'sso'], queryFn: getSsoStatus, staleTime: 5 * 60_000, retry: false });

  const onSso = async () => {
    if (redirecting) return;
    setRedirecting(true);
    setFormError(null);
    setReason(null);
    try {
      const { authorization_url: url } = await startSso(redirectTo);
      window.location.assign(url);
    } catch (error) {
      setReason(serverReason(error));
      if (!serverReason(error)) setFormError('auth.sso.failed');
      setRedirecting(false);
    }
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const found = validateLogin(email, password);
    setErrors(found);
    if (found.email || found.password) return;
    setSubmitting(true);
    setFormError(null);
    setReason(null);
    try {
      await login({ email, password });
      navigate(redirectTo ?? paths.app.dashboard.path, { replace: true });
    } catch (error) {
      // Password login turned off by the organisation: the server says so, and what to do instead.
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'password_login_disabled' && serverReason(error)) setReason(serverReason(error));
      else setFormError('errors.loginFailed');
      setSubmitting(false);
    }
  };

  return (
    <form className="form-stack" onSubmit={onSubmit} noValidate aria-label={t('auth.login.title')}>
      <InvitationNotice redirectTo={redirectTo} mode="login" onInvite={fillInvited} />
      {formError ? <Alert tone="error">{t(formError)}</Alert> : null}
      {reason ? <Alert tone="error">{reason}</Alert> : null}
      {sso.data?.enabled ? (
        <>
          <Button type="button" size="lg" variant="secondary" className="btn-block" loading={redirecting} onClick={() => void onSso()}>
            {redirecting ? t('auth.sso.redirecting') : t('auth.sso.button')}
          </Button>
          <p className="form-aside" aria-hidden="true">
            {t('auth.sso.or')}
          </p>
        </>
      ) : null}
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
