import { randomUUID } from 'node:crypto';
import { aggregateStream, ValidationError } from '@baret/platform';
import MailChecker from 'mailchecker';
import type { IdentityDeps } from '../deps.js';
import { hashPassword } from '../passwords.js';
import type { UserDoc } from '../readModels/users.js';
import { userDecider } from './businessLogic.js';
import { claimEmail, emailDecider, emailStream } from './emailClaim.js';
import { requestEmailVerification } from './emailVerification.js';
import { userStream } from './user.js';

/** A person creates an account with an address and a password; the address is claimed first, so two cannot take it. */
export async function register(deps: IdentityDeps, input: { email: string; password: string; full_name?: string | null; language?: 'tr' | 'en'; origin?: string }): Promise<UserDoc> {
  const { eventStore, run, users, log, clock } = deps;
  const email = input.email.trim();
  if (!MailChecker.isValid(email)) {
    throw new ValidationError('Disposable or invalid email addresses are not accepted. Please use a permanent address.');
  }
  const fullName = input.full_name?.trim() || null;
  const userId = randomUUID();
  const passwordHash = await hashPassword(input.password, deps.scryptParams);

  const claim = await aggregateStream(eventStore, emailStream(email), emailDecider);
  const owner = claim.state.owner;
  const abandoned = owner !== null && (await eventStore.readStream(userStream(owner))).length === 0 ? owner : null;
  await run(eventStore, emailStream(email), emailDecider, claimEmail(userId, abandoned));
  await run(eventStore, userStream(userId), userDecider, {
    type: 'register_user',
    data: { user_id: userId, email, full_name: fullName, password_hash: passwordHash, is_admin: false, now: clock(), language: input.language ?? 'tr' },
  });
  await requestEmailVerification(deps, userId, input.language ?? 'tr', input.origin);
  const user = await users.byId(userId);
  if (!user) throw new Error('registered user missing from the read model');
  log.info({ user_id: userId }, 'user registered');
  return user;
}
