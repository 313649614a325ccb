/** A forgotten password: a link mailed to the address, then a new password set with it. */
import { aggregateStream, type AuditSource } from '@baret/platform';
import { revokeApiKeys } from '../apiKey/commands.js';
import type { IdentityDeps } from '../deps.js';
import { hashPassword } from '../passwords.js';
import { InvalidTokenError, userDecider } from './businessLogic.js';
import { newToken, sha256, userOfToken } from './tokens.js';
import { userStream } from './user.js';

/**
 * Mails a reset link when the address has an account. The caller answers the same at once either
 * way (202, before any lookup), so neither the answer nor its timing tells whether an account exists.
 * At most 3 links per account per hour are sent; more requests are dropped quietly.
 */
export async function requestPasswordReset(deps: IdentityDeps, emailInput: string, language: 'tr' | 'en', origin?: string): Promise<void> {
  const { users, log, clock, eventStore, run } = deps;
  const user = await users.byEmail(emailInput);
  if (!user) {
    log.info({ reason: 'unknown_email' }, 'password reset not sent');
    return;
  }
  const hourAgo = clock().getTime() - 3600_000;
  const recent = (await eventStore.readStream(userStream(user.id))).filter((e) => e.type === 'password_reset_requested' && e.createdAt.getTime() > hourAgo);
  if (recent.length >= 3) {
    log.info({ user_id: user.id, reason: 'too_many' }, 'password reset not sent');
    return;
  }
  await run(eventStore, userStream(user.id), userDecider, { type: 'request_password_reset', data: { ...newToken(user.id), language, now: clock(), ...(origin ? { origin } : {}) } });
  log.info({ user_id: user.id }, 'password reset link requested');
}

/**
 * Sets a new password with a reset link: the link, every earlier one and every session end. API
 * keys are credentials of their own and keep working, unless `revokeApiKeys` (a reset after a
 * suspected compromise): then every key of the account is revoked first — once the link is known
 * to be valid, so a retry after a crash finishes the job — and the audit log records which it was.
 */
export async function completePasswordReset(deps: IdentityDeps, token: string, password: string, options: { revokeApiKeys?: boolean; from?: AuditSource } = {}): Promise<void> {
  const { eventStore, run, clock, log, recorder, orgs } = deps;
  const userId = userOfToken(token);
  if (!userId) throw new InvalidTokenError();
  const passwordHash = await hashPassword(password, deps.scryptParams);
  const command = { type: 'complete_password_reset' as const, data: { token_hash: sha256(token), password_hash: passwordHash, now: clock() } };
  let revoked = 0;
  if (options.revokeApiKeys) {
    userDecider.decide(command, (await aggregateStream(eventStore, userStream(userId), userDecider)).state); // throws unless the link is valid
    revoked = await revokeApiKeys(deps, userId);
  }
  const { recorded } = await run(eventStore, userStream(userId), userDecider, command);
  log.info({ user_id: userId, api_keys_revoked: revoked }, 'password reset');
  await recorder.record({
    action: 'auth.password_reset',
    actorId: userId,
    orgId: (await orgs.queries.membershipOf(userId))?.org_id ?? null,
    objectType: 'user',
    objectId: userId,
    ip: options.from?.ip,
    userAgent: options.from?.userAgent,
    details: { api_keys: options.revokeApiKeys ? 'revoked' : 'kept', revoked: String(revoked) },
    ...(recorded[0] ? { key: recorded[0].id } : {}),
  });
}
