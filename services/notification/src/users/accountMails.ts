import type { DecodedEnvelope } from '@baret/platform';
import { composeMail } from '../email.js';
import type { Engine } from '../engine.js';
import type { Collections } from '../store.js';

/** The account mails identity asks for (user-events): a password reset link, an address to confirm. */

const ACCOUNT_MAILS = {
  password_reset: {
    tr: { title: 'Şifre sıfırlama', body: 'Şifrenizi sıfırlamak için aşağıdaki bağlantıyı kullanın. Bağlantı 1 saat geçerlidir ve yalnızca bir kez kullanılabilir. Yeni şifre tüm oturumlarınızı kapatır. Formda “Tüm API anahtarlarımı da iptal et” işaretlidir: şifrenizi başka birinin bilmiş olabileceğini düşünüyorsanız işaretli bırakın (anahtarları kullanan betikler, yeni anahtar oluşturana kadar durur); API anahtarlarınızın çalışmaya devam etmesi için işareti kaldırın. Bu isteği siz yapmadıysanız bu e-postayı yok sayın.', label: 'Yeni şifre belirle' },
    en: { title: 'Reset your password', body: 'Use the link below to set a new password. It is valid for 1 hour and works once. A new password ends all your sessions. On the form, “Also revoke all my API keys” is ticked: leave it ticked if someone else may have known your password (scripts using the keys stop until you create new ones); untick it to keep your API keys working. If you did not ask for this, ignore this e-mail.', label: 'Set a new password' },
  },
  email_verification: {
    tr: { title: 'E-posta adresinizi doğrulayın', body: "Baret hesabınızın bu adrese ait olduğunu doğrulamak için aşağıdaki bağlantıya tıklayın.", label: 'Adresimi doğrula' },
    en: { title: 'Confirm your e-mail address', body: 'Click the link below to confirm that this address belongs to your Baret account.', label: 'Confirm my address' },
  },
} as const;

/** A password reset or e-mail confirmation link, mailed once per request in the language it names. */
export async function mailAccountLink(deps: { cols: Collections; engine: Pick<Engine, 'link' | 'mail'> }, event: DecodedEnvelope, signal?: AbortSignal): Promise<void> {
  const { cols, engine } = deps;
  const d = event.data as Record<string, string | undefined>;
  const userId = d.user_id ?? '';
  const kind = event.type === 'password_reset_requested' ? 'password_reset' : 'email_verification';
  const lang = d.language === 'en' ? 'en' : 'tr';
  const words = ACCOUNT_MAILS[kind][lang];
  const page = kind === 'password_reset' ? 'reset-password' : 'verify-email';
  const recipient = await cols.recipients.get(userId);
  // The address they asked from: their later mails (a job finished, a quota) link there too (issue 54).
  if (recipient && d.origin && recipient.origin !== d.origin) await cols.recipients.put(userId, { ...recipient, origin: d.origin });
  const composed = composeMail(lang, { name: recipient?.full_name ?? null, title: words.title, body: words.body, link: engine.link(`/${page}?token=${encodeURIComponent(d.token ?? '')}`, d.origin ?? undefined), linkLabel: words.label });
  await engine.mail(`${event.id}:email`, kind, userId, { to: d.email ?? '', ...composed }, signal);
}
