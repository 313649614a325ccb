import type { Collection, DecodedEnvelope } from '@baret/platform';
import type { Logger } from 'pino';
import type { Claims } from '../claims.js';
import type { Mailer, OutgoingMail } from '../mailer.js';
import type { OutboxDoc } from '../store.js';
import { projectInbox, type InboxDoc } from './inbox.js';

/** The team's mail: contact messages and upgrade requests (contact-events, upgrade-events), mailed to the team and listed in its inbox. */
export interface TeamMailDeps {
  outbox: Collection<OutboxDoc>;
  inbox: Collection<InboxDoc>;
  claims: Claims;
  mailer: Mailer | null;
  teamEmail: string;
  log: Logger;
  clock: () => Date;
}

/** Idempotent by source event id: a redelivered message is not mailed twice. */
async function deliver(deps: TeamMailDeps, id: string, kind: OutboxDoc['kind'], mail: OutgoingMail): Promise<void> {
  const { outbox, claims, mailer, clock, log } = deps;
  if (await outbox.get(id)) return;
  await claims.claimOrWait(`mail:${id}`);
  if (await outbox.get(id)) return;
  if (mailer) await mailer.send(mail);
  await outbox.put(id, {
    id,
    kind,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    reply_to: mail.replyTo ?? null,
    channel: mailer ? 'smtp' : 'log',
    created_at: clock().toISOString(),
  });
  log.info({ notification_id: id, kind, channel: mailer ? 'smtp' : 'log', to: mail.to, subject: mail.subject }, 'notification delivered to the team');
}

/** A contact message or an upgrade request: into the inbox, and mailed to the team once. */
export async function onTeamEvent(deps: TeamMailDeps, event: DecodedEnvelope): Promise<void> {
  const d = event.data as Record<string, string | undefined>;
  await projectInbox(deps.inbox, event);
  if (event.type === 'contact_message_submitted') {
    await deliver(deps, event.id, 'contact', {
      to: deps.teamEmail,
      subject: `[Baret] ${d.subject ?? 'Contact message'}`,
      text: `From: ${d.name ?? '-'} <${d.email ?? ''}>\n\n${d.message ?? ''}`,
      replyTo: d.email,
    });
  } else if (event.type === 'upgrade_requested') {
    await deliver(deps, event.id, 'upgrade_request', {
      to: deps.teamEmail,
      subject: `[Baret] Pro upgrade request from ${d.email ?? ''}`,
      text: `User: ${d.email ?? ''} (${d.user_id ?? ''})\nOrigin: ${d.origin ?? ''}\n\n${d.message ?? '(no message)'}`,
      replyTo: d.email,
    });
  }
}
