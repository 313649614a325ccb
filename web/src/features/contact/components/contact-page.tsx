import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Card } from '@/components/ui/card';
import { CONTACT_MESSAGE_MAX, CONTACT_MESSAGE_MIN, useSendContact, type ContactInput } from '@/features/contact/api/send-contact';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type ContactErrors = { email?: string; message?: string };

/** Inline validation (spec section 5); returns translation KEYS so a language switch re-localises them. */
export function validateContact(values: ContactInput): ContactErrors {
  const errors: ContactErrors = {};
  const email = values.email.trim();
  if (!email) errors.email = 'validation.emailRequired';
  else if (!EMAIL_PATTERN.test(email)) errors.email = 'validation.emailInvalid';
  const message = values.message.trim();
  if (message.length < CONTACT_MESSAGE_MIN) errors.message = 'contact.messagePlaceholder';
  else if (message.length > CONTACT_MESSAGE_MAX) errors.message = 'validation.messageMax';
  return errors;
}

type FormState = 'idle' | 'loading' | 'success' | 'error';

function ContactForm() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const mutation = useSendContact();
  const [values, setValues] = useState<ContactInput>({ name: user?.full_name ?? '', email: user?.email ?? '', subject: '', message: '' });
  const [errors, setErrors] = useState<ContactErrors>({});
  const [state, setState] = useState<FormState>('idle');
  const [reason, setReason] = useState<string | null>(null);
  const set = (key: keyof ContactInput) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: event.target.value }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (state === 'loading' || state === 'success') return;
    const found = validateContact(values);
    setErrors(found);
    if (found.email || found.message) return;
    setState('loading');
    setReason(null);
    try {
      await mutation.mutateAsync(values);
      setState('success');
      setValues((v) => ({ ...v, message: '' }));
    } catch (error) {
      setReason(serverReason(error));
      setState('error');
    }
  };
  const locked = state === 'loading' || state === 'success';

  return (
    <Card as="form" className="form-stack" title={t('contact.formTitle')} onSubmit={onSubmit} noValidate aria-label={t('contact.formTitle')}>
      {state === 'success' ? <Alert tone="success">{t('contact.success')}</Alert> : null}
      {state === 'error' ? <Alert tone="error">{reason ?? t('errors.tryLater')}</Alert> : null}
      <div className="form-row">
        <Field label={t('contact.name')} optional={t('common.optional')}>
          {(props) => <input {...props} className="input" name="name" autoComplete="name" value={values.name} onChange={set('name')} disabled={locked} />}
        </Field>
        <Field label={t('contact.email')} error={errors.email ? t(errors.email) : undefined}>
          {(props) => <input {...props} className="input" type="email" name="email" autoComplete="email" value={values.email} onChange={set('email')} disabled={locked} required />}
        </Field>
      </div>
      <Field label={t('contact.subject')} optional={t('common.optional')}>
        {(props) => <input {...props} className="input" name="subject" value={values.subject} onChange={set('subject')} disabled={locked} />}
      </Field>
      <Field
        label={t('contact.message')}
        hint={t('common.charCount', { count: values.message.length, max: CONTACT_MESSAGE_MAX })}
        error={errors.message ? t(errors.message, { max: CONTACT_MESSAGE_MAX }) : undefined}
      >
        {(props) => (
          <textarea
            {...props}
            className="input textarea"
            name="message"
            rows={6}
            maxLength={CONTACT_MESSAGE_MAX}
            placeholder={t('contact.messagePlaceholder')}
            value={values.message}
            onChange={set('message')}
            disabled={locked}
            required
          />
        )}
      </Field>
      <Button type="submit" size="lg" loading={state === 'loading'} disabled={state === 'success'}>
        {state === 'success' ? t('contact.sent') : t('contact.submit')}
      </Button>
    </Card>
  );
}

function TeamPanel() {
  const { t } = useTranslation();
  const points = ['contact.team.point1', 'contact.team.point2', 'contact.team.point3'];
  return (
    <Card as="aside" className="team-panel" title={t('contact.team.title')} titleId="team-title">
      <p>{t('contact.team.body')}</p>
      <ul className="check-list">
        {points.map((key) => (
          <li key={key}>{t(key)}</li>
        ))}
      </ul>
      <dl className="team-facts">
        <div>
          <dt>{t('contact.team.locationLabel')}</dt>
          <dd>{t('contact.team.location')}</dd>
        </div>
        <div>
          <dt>{t('contact.team.hoursLabel')}</dt>
          <dd>{t('contact.team.hours')}</dd>
        </div>
        <div>
          <dt>{t('contact.team.emailLabel')}</dt>
          <dd>
            <a href="mailto:merhaba@baret.app">merhaba@baret.app</a>
          </dd>
        </div>
      </dl>
    </Card>
  );
}

export function ContactPage() {
  const { t } = useTranslation();
  return (
    <div className="container section">
      <header className="section-head">
        <p className="eyebrow">{t('contact.eyebrow')}</p>
        <h1 className="section-title">{t('contact.title')}</h1>
        <p className="lead">{t('contact.subtitle')}</p>
      </header>
      <div className="contact-grid">
        <ContactForm />
        <TeamPanel />
      </div>
    </div>
  );
}
