import type { DecodedEnvelope } from '@baret/platform';
import type { Engine } from '../engine.js';
import type { Collections } from '../store.js';
import { mailInvite } from './invites.js';
import { applyMembership } from './members.js';

/** Organisations as the notification service needs them (`org-events`): who manages which, and the invitations to mail. */
export function createOrgHandler(cols: Collections, engine: Pick<Engine, 'link' | 'mail'>) {
  return async function onOrgEvent(event: DecodedEnvelope): Promise<void> {
    if (event.type === 'org_invite_mail_requested') return mailInvite({ cols, engine }, event.data as Record<string, unknown>);
    await applyMembership(cols, event);
  };
}
