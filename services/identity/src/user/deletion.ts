/** Deleting an account: by an admin, or erased by its owner (issue 30). */
import { DomainError, NotFoundError, shredderOf, type Principal } from '@baret/platform';
import { deleteApiKey } from '../apiKey/commands.js';
import type { IdentityDeps } from '../deps.js';
import { verifyPassword } from '../passwords.js';
import { userDecider } from './businessLogic.js';
import { emailDecider, emailStream } from './emailClaim.js';
import { userStream } from './user.js';

/** An account without a password may be erased within this long of signing in (issue 30). */
export const RECENT_LOGIN_MS = 5 * 60_000;

/** Erasing an account needs the password (or a fresh sign-in): a wrong or missing one is refused. */
export class ReauthenticationError extends DomainError {
  readonly status = 403;
  readonly code = 'reauthentication_required';
}

export async function deleteUser(deps: IdentityDeps, userId: string, by: string, erasure = false): Promise<void> {
  const { users, keys, orgs, run, eventStore, clock, log } = deps;
  const user = await users.byId(userId);
  await run(eventStore, userStream(userId), userDecider, { type: 'delete_user', data: { deleted_by: by, now: clock(), erasure } });
  for (const key of await keys.ofUser(userId)) await deleteApiKey(deps, null, key.id);
  await orgs.userDeleted(userId);
  if (user) await run(eventStore, emailStream(user.email), emailDecider, { type: 'release', data: { user_id: userId } });
  // Every personal field of the user's events (address, name, password hash, tokens) unreadable from now on (docs/adr/0025).
  await shredderOf(eventStore)?.shred(`user:${userId}`);
  log.info({ user_id: userId, deleted_by: by, erasure }, 'user deleted');
}

/**
 * A user erases their own account (issue 30, `DELETE /me`) after proving it is them: their
 * password, or, for an account without one (single sign-on), a sign-in within the last
 * RECENT_LOGIN_MS (a login token issued that recently). Then as an admin's deletion: sessions and
 * API keys end, the membership goes, their events are shredded; the other services erase the
 * rest on `user_deleted` (jobs of an organisation stay, anonymised).
 */
export async function eraseAccount(deps: IdentityDeps, principal: Principal, password: string | undefined): Promise<void> {
  const user = await deps.users.byId(principal.userId);
  if (!user) throw new NotFoundError('This user does not exist.');
  if (password !== undefined) {
    if (!user.password_hash || !(await verifyPassword(password, user.password_hash))) throw new ReauthenticationError('The password is not correct.');
  } else {
    const recent = principal.via === 'jwt' && principal.authTime !== undefined && deps.clock().getTime() - principal.authTime <= RECENT_LOGIN_MS;
    if (user.password_hash || !recent) throw new ReauthenticationError('Please confirm with your password to delete your account.');
  }
  await deleteUser(deps, principal.userId, principal.userId, true);
}
