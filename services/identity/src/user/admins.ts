/** Admins: promoted by an admin (the admin CLI), or by configuration (BARET_ADMIN_EMAILS) once their address is verified. */
import { ValidationError } from '@baret/platform';
import type { IdentityDeps } from '../deps.js';
import type { UserDoc } from '../readModels/users.js';
import { userDecider } from './businessLogic.js';
import { normaliseEmail } from './emailClaim.js';
import { userStream } from './user.js';

export async function promote(deps: IdentityDeps, email: string): Promise<UserDoc> {
  const { users, run, eventStore } = deps;
  const user = await users.byEmail(email);
  if (!user) throw new ValidationError(`No user with the email ${email}.`);
  await run(eventStore, userStream(user.id), userDecider, { type: 'promote_user', data: {} });
  return (await users.byId(user.id)) ?? user;
}

/** Users named in BARET_ADMIN_EMAILS who registered (and verified their address) before the setting are promoted at start. */
export async function promoteConfiguredAdmins(deps: IdentityDeps): Promise<void> {
  for (const email of deps.adminEmails) {
    const user = await deps.users.byEmail(email);
    if (user) await promoteIfConfigured(deps, user.id);
  }
}

/**
 * An address named in BARET_ADMIN_EMAILS makes its user an admin once it is verified (the
 * confirmation link, or the identity provider's email_verified), never before (issue 37): whoever
 * registers the address first cannot take the admin rights meant for its owner.
 */
export async function promoteIfConfigured(deps: IdentityDeps, userId: string): Promise<void> {
  const { users, run, eventStore, adminEmails, log } = deps;
  const user = await users.byId(userId);
  if (!user || user.is_admin || !user.email_verified || !adminEmails.has(normaliseEmail(user.email))) return;
  await run(eventStore, userStream(user.id), userDecider, { type: 'promote_user', data: {} });
  log.info({ user_id: user.id }, 'promoted to admin by configuration');
}
