import type { IdentityDeps } from '../deps.js';
import { userDecider } from './businessLogic.js';
import { requestEmailVerification } from './emailVerification.js';
import { newToken } from './tokens.js';
import { userStream } from './user.js';

/** An admin confirms an address by hand, or mails its owner a link again (issue 40); false when no account has the address. */
export async function adminMail(deps: IdentityDeps, email: string, action: 'verify' | 'email_verification' | 'password_reset', by: string, language: 'tr' | 'en', origin?: string): Promise<boolean> {
  const { users, run, eventStore, clock, log } = deps;
  const user = await users.byEmail(email);
  if (!user) return false;
  if (action === 'verify') await run(eventStore, userStream(user.id), userDecider, { type: 'mark_email_verified', data: { by, now: clock() } });
  else if (action === 'email_verification') await requestEmailVerification(deps, user.id, language, origin);
  else await run(eventStore, userStream(user.id), userDecider, { type: 'request_password_reset', data: { ...newToken(user.id), language, now: clock(), ...(origin ? { origin } : {}) } });
  log.info({ user_id: user.id, action, by }, 'admin mail action');
  return true;
}
