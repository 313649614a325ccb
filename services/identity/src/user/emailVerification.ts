/** Confirming an e-mail address: a link mailed at registration (and again on request), opened once. */
import type { IdentityDeps } from '../deps.js';
import { promoteIfConfigured } from './admins.js';
import { InvalidTokenError, userDecider } from './businessLogic.js';
import { newToken, sha256, userOfToken } from './tokens.js';
import { userStream } from './user.js';

export async function requestEmailVerification(deps: IdentityDeps, userId: string, language: 'tr' | 'en', origin?: string): Promise<void> {
  await deps.run(deps.eventStore, userStream(userId), userDecider, { type: 'request_email_verification', data: { ...newToken(userId), language, now: deps.clock(), ...(origin ? { origin } : {}) } });
}

export async function verifyEmail(deps: IdentityDeps, token: string): Promise<void> {
  const userId = userOfToken(token);
  if (!userId) throw new InvalidTokenError();
  await deps.run(deps.eventStore, userStream(userId), userDecider, { type: 'verify_email', data: { token_hash: sha256(token), now: deps.clock() } });
  await promoteIfConfigured(deps, userId);
}
