import type { DecodedEnvelope, Lang } from '@baret/platform';
import { composeMail } from './email.js';
import type { Engine } from './engine.js';
import type { Collections, RecipientDoc } from './store.js';

/**
 * Organisations as the notification service needs them (issue 28 and 29), from `org-events`: who
 * manages which organisation (its managers are told of their members' jobs and of the
 * organisation's quota), and the invitations to mail.
 */

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

/** The managers of an organisation now (user ids). */
export async function managersOf(cols: Collections, orgId: string): Promise<string[]> {
  return (await cols.orgMembers.find({ where: { org_id: orgId, role: 'manager' } })).map((m) => m.id);
}

export function createOrgHandler(cols: Collections, engine: Engine) {
  /** The invitation link, mailed once per invitation, in the invitee's language if known, else the inviter's. */
  async function mailInvite(d: Record<string, unknown>): Promise<void> {
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

  return async function onOrgEvent(event: DecodedEnvelope): Promise<void> {
    const d = event.data as Record<string, unknown>;
    const userId = typeof d.user_id === 'string' ? d.user_id : '';
    const orgId = typeof d.org_id === 'string' ? d.org_id : '';
    switch (event.type) {
      case 'org_member_added':
        if (userId && orgId) await cols.orgMembers.put(userId, { id: userId, org_id: orgId, role: d.role === 'manager' ? 'manager' : 'member' });
        return;
      case 'org_member_removed': {
        // A removal from one organisation read after the user joined another changes nothing.
        const m = userId ? await cols.orgMembers.get(userId) : null;
        if (m && m.org_id === orgId) await cols.orgMembers.delete(userId);
        return;
      }
      case 'org_invite_mail_requested':
        await mailInvite(d);
        return;
      default:
    }
  };
}
