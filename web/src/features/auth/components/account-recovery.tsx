import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { PASSWORD_MIN_LENGTH } from '@/features/auth/components/register-form';
import { api, serverReason } from '@/lib/api-client';
import { useMailDelivers } from '@/lib/mail';

/** /forgot-password: one answer whatever the address (the server says nothing about accounts). */
export function ForgotPasswordForm() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'sending' | 'sent'>('idle');
  const delivers = useMailDelivers();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
      setError('validation.emailInvalid');
      return;
    }
    setError(null);
    setState('sending');
    try {
      await api.post('/auth/password-reset', { email: email.trim() });
      setState('sent');
    } catch (e) {
      setState('idle');
      setError(serverReason(e) ?? 'recovery.failed');
    }
  };

  if (state === 'sent') {
    return (
      <div className="form-stack">
        {/* Without a mail server the link reached nobody: say so and whom to ask (issue 54). */}
        {delivers === false ? <Alert tone="warning">{t('recovery.noMail')}</Alert> : <Alert tone="success">{t('recovery.sent')}</Alert>}
        <Link to={paths.auth.login.path}>{t('recovery.backToLogin')}</Link>
      </div>
    );
  }
  return (
    <form className="form-stack" onSubmit={onSubmit} noValidate aria-label={t('recovery.forgotTitle')}>
      {error ? <Alert tone="error">{t(error)}</Alert> : null}
      <Field label={t('auth.email')}>
        {(props) => <input {...props} className="input" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />}
      </Field>
      <Button type="submit" size="lg" loading={state === 'sending'} className="btn-block">
        {t('recovery.sendLink')}
      </Button>
      <p className="form-foot">
        <Link to={paths.auth.login.path}>{t('recovery.backToLogin')}</Link>
      </p>
    </form>
  );
}

/** /reset-password?token=…: a new password, once. */
export function ResetPasswordForm() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  // Ticked by default: the reset that matters most is the one after a suspected compromise.
  const [revokeKeys, setRevokeKeys] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'saving' | 'done'>('idle');

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (password.length < PASSWORD_MIN_LENGTH) return setError('validation.passwordMin');
    if (password !== confirm) return setError('recovery.mismatch');
    setError(null);
    setState('saving');
    try {
      await api.post('/auth/password-reset/confirm', { token, password, revoke_api_keys: revokeKeys });
      setState('done');
    } catch (e) {
      setState('idle');
      setError(serverReason(e) ?? 'recovery.failed');
    }
  };

  if (!token) return <Alert tone="error">{t('recovery.invalidLink')}</Alert>;
  if (state === 'done') {
    return (
      <div className="form-stack">
        <Alert tone="success">{t(revokeKeys ? 'recovery.changedKeysRevoked' : 'recovery.changed')}</Alert>
        <Link to={paths.auth.login.path}>{t('nav.login')}</Link>
      </div>
    );
  }
  return (
    <form className="form-stack" onSubmit={onSubmit} noValidate aria-label={t('recovery.resetTitle')}>
      {error ? <Alert tone="error">{t(error, { min: PASSWORD_MIN_LENGTH })}</Alert> : null}
      <Field label={t('recovery.newPassword')} hint={t('auth.register.passwordHint', { min: PASSWORD_MIN_LENGTH })}>
        {(props) => <input {...props} className="input" type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required minLength={PASSWORD_MIN_LENGTH} />}
      </Field>
      <Field label={t('auth.confirmPassword')}>
        {(props) => <input {...props} className="input" type="password" name="confirm" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} required />}
      </Field>
      <label className="checkbox">
        <input type="checkbox" name="revoke_api_keys" aria-describedby="reset-revoke-keys-hint" checked={revokeKeys} onChange={(e) => setRevokeKeys(e.target.checked)} />
        <span>{t('recovery.revokeKeys')}</span>
      </label>
      <p id="reset-revoke-keys-hint" className="field-hint">
        {t('recovery.revokeKeysHint')}
      </p>
      <Button type="submit" size="lg" loading={state === 'saving'} className="btn-block">
        {t('recovery.save')}
      </Button>
    </form>
  );
}

/** /verify-email?token=…: confirms the address as soon as it opens. */
export function VerifyEmail() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<'working' | 'done' | 'failed'>(token ? 'working' : 'failed');
  const sent = useRef(false);
  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    api.post('/auth/verify-email', { token }).then(
      () => setState('done'),
      () => setState('failed'),
    );
  }, [token]);
  if (state === 'working') return <p className="muted">{t('common.loading')}</p>;
  return (
    <div className="form-stack">
      <Alert tone={state === 'done' ? 'success' : 'error'}>{t(state === 'done' ? 'verify.done' : 'recovery.invalidLink')}</Alert>
      <Link to={paths.app.dashboard.path}>{t('nav.analyze')}</Link>
    </div>
  );
}
