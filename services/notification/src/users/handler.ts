import type { Collection, DecodedEnvelope } from '@baret/platform';
import type { Engine } from '../engine.js';
import type { Collections, OutboxDoc } from '../store.js';
import { mailAccountLink } from './accountMails.js';
import { eraseUser } from './erasure.js';

export interface UserDeps {
  cols: Collections;
  outbox: Collection<OutboxDoc>;
  engine: Pick<Engine, 'link' | 'mail'>;
}

/** Who users are (the service's own copy: where and in which language to write) and the account mails identity asks for (user-events). */
export async function onUserEvent(deps: UserDeps, event: DecodedEnvelope, signal?: AbortSignal): Promise<void> {
  const { cols } = deps;
  const d = event.data as Record<string, string | undefined>;
  const userId = d.user_id ?? '';
  switch (event.type) {
    case 'user_registered': {
      if (await cols.recipients.get(userId)) return;
      await cols.recipients.put(userId, { id: userId, email: d.email ?? '', full_name: d.full_name ?? null, language: d.language === 'en' ? 'en' : 'tr', deleted: false });
      return;
    }
    case 'user_deleted':
      await eraseUser(deps, userId);
      return;
    case 'password_reset_requested':
    case 'email_verification_requested':
      await mailAccountLink(deps, event, signal);
      return;
    default:
  }
}
