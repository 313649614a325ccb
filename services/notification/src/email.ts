import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Lang } from '@baret/platform';
import type { NoticeKind } from './notices.js';

/**
 * Mails to users: the same message as HTML and text, in their language, with the link to the page
 * and a one-click unsubscribe link. The unsubscribe token is signed (HMAC-SHA256 with the
 * service's own secret), names the user and the kind, and needs no login.
 */

export function unsubscribeToken(secret: string, userId: string, kind: NoticeKind): string {
  const payload = Buffer.from(JSON.stringify({ u: userId, k: kind })).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

export function readUnsubscribeToken(secret: string, token: string): { userId: string; kind: NoticeKind } | null {
  const [payload, sig] = token.split('.');
  if (!payload || !sig) return null;
  const want = createHmac('sha256', secret).update(payload).digest();
  const got = Buffer.from(sig, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  try {
    const { u, k } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { u?: unknown; k?: unknown };
    if (typeof u !== 'string' || (k !== 'report_ready' && k !== 'analysis_failed' && k !== 'quota')) return null;
    return { userId: u, kind: k };
  } catch {
    return null;
  }
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const WORDS = {
  tr: { hello: 'Merhaba', open: 'Sayfayı aç', unsubscribe: 'Bu tür e-postaları almak istemiyorsanız aboneliğinizi tek tıkla iptal edin', team: 'Baret' },
  en: { hello: 'Hello', open: 'Open the page', unsubscribe: 'Do not want these e-mails? Unsubscribe with one click', team: 'Baret' },
} as const;

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

/** A mail with a title, a paragraph, a button to `link` and, when given, an unsubscribe link. */
export function composeMail(lang: Lang, input: { name: string | null; title: string; body: string; link: string; linkLabel?: string; unsubscribe?: string }): ComposedMail {
  const w = WORDS[lang];
  const greet = `${w.hello}${input.name ? ` ${input.name}` : ''},`;
  const label = input.linkLabel ?? w.open;
  const text = [greet, '', input.body, '', `${label}: ${input.link}`, '', ...(input.unsubscribe ? [`${w.unsubscribe}: ${input.unsubscribe}`, ''] : []), `— ${w.team}`].join('\n');
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title></head>
<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1a1a1a;max-width:560px;margin:0 auto;padding:24px">
<h1 style="font-size:20px">${escapeHtml(input.title)}</h1>
<p>${escapeHtml(greet)}</p>
<p>${escapeHtml(input.body)}</p>
<p><a href="${escapeHtml(input.link)}" style="display:inline-block;background:#f5a623;color:#1a1a1a;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>
${input.unsubscribe ? `<p style="font-size:12px;color:#555"><a href="${escapeHtml(input.unsubscribe)}">${escapeHtml(w.unsubscribe)}</a></p>` : ''}
<p style="font-size:12px;color:#555">— ${w.team}</p>
</body></html>`;
  return { subject: `[Baret] ${input.title}`, text, html };
}

/**
 * A mail's text as the admin outbox shows it (issue 37): that a reset, confirmation or invitation
 * was sent, never a link that still works — every query value of a link (the tokens of reset,
 * confirmation and unsubscribe links) and an invitation's token are replaced by `[hidden]`.
 */
export function redactLinks(text: string): string {
  return text.replace(/([?&][\w.-]+)=[^&#\s]*/g, '$1=[hidden]').replace(/\/invite\/[^/?#\s]+/g, '/invite/[hidden]');
}
