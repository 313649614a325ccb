import type { Lang } from '@baret/platform';
import { composeMail } from '../email.js';
import type { Engine } from '../engine.js';
import type { Collections, RecipientDoc } from '../store.js';

/** The invitations to an organisation (issue 28), from `org-events`: one mail per invitation. */

const INVITE_MAIL = {
  tr: {
    title: (org: string) => `${org} sizi Baret'e davet ediyor`,
    body: (who: string, org: string, role: string, until: string) =>
      `${who}, sizi Baret'te ${org} organizasyonuna ${role} olarak davet ediyor. Daveti kabul etmek için bu e-posta adresiyle giriş yapın ya da hesap oluşturun. Davet ${until} tarihine kadar geçerlidir.`,
    someone: 'Bir yönetici',
    roles: { manager: 'yönetici', member: 'üye' } as Record<string, string>,
    label: 'Daveti kabul et',
  },
  en: {
    title: (org: string) => `${org} invites you to Baret`,
    body: (who: string, org: string, role: string, until: string) =>
      `${who} invites you to join ${org} on Baret as a ${role}. To accept, sign in or create an account with this e-mail address. The invitation is valid until ${until}.`,
    someone: 'A manager',
    roles: { manager: 'manager', member: 'member' } as Record<string, string>,
    label: 'Accept the invitation',
  },
} as const;

const formatDate = (iso: string, lang: Lang): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : new Intl.DateTimeFormat(lang === 'tr' ? 'tr-TR' : 'en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(d);
};

/** The recipient registered with `email`, if any (addresses compared case-insensitively). */
async function recipientByEmail(cols: Collections, email: string): Promise<RecipientDoc | null> {
  const exact = await cols.recipients.find({ where: { email, deleted: false }, limit: 1 });
  if (exact[0]) return exact[0];
  const lower = email.trim().toLowerCase();
  return lower === email ? null : ((await cols.recipients.find({ where: { email: lower, deleted: false }, limit: 1 }))[0] ?? null);
}

/** The invitation link, mailed once per invitation, in the invitee's language if known, else the inviter's. */
export async function mailInvite(deps: { cols: Collections; engine: Pick<Engine, 'link' | 'mail'> }, d: Record<string, unknown>): Promise<void> {
  const { cols, engine } = deps;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const inviteId = s(d.invite_id);
  const email = s(d.email);
  if (!inviteId || !email || !s(d.token)) return;
  const invitee = await recipientByEmail(cols, email);
  const inviter = s(d.invited_by) ? await cols.recipients.get(s(d.invited_by)) : null;
  const lang: Lang = invitee?.language ?? inviter?.language ?? 'tr';
  const w = INVITE_MAIL[lang];
  const org = s(d.org_name) || 'Baret';
  const composed = composeMail(lang, {
    name: invitee?.full_name ?? null,
    title: w.title(org),
    body: w.body(inviter?.full_name || inviter?.email || w.someone, org, w.roles[s(d.role)] ?? s(d.role), formatDate(s(d.expires_at), lang)),
    link: engine.link(`/invite/${encodeURIComponent(s(d.token))}`, s(d.origin) || undefined),
    linkLabel: w.label,
  });
  await engine.mail(`invite:${inviteId}:email`, 'org_invite', invitee?.id ?? null, { to: email, ...composed });
}
