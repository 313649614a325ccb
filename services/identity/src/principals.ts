/** What the gateway and the other services ask identity: who a caller is, who the users are, a person's data. */
import { API_KEY_PREFIX, quotaAccountOf, type AuthResolvers, type Principal, type UserDirectory } from '@baret/platform';
import { publicKey } from './apiKey/commands.js';
import type { IdentityDeps } from './deps.js';
import type { UserDoc } from './readModels/users.js';
import { settings } from './settings/settings.js';
import { sha256 } from './user/tokens.js';
import { publicUser } from './user/view.js';

/** Who a user is now, with the organisation they belong to (read on every request, so a removal takes effect at once). */
async function toPrincipal(deps: IdentityDeps, u: UserDoc): Promise<Omit<Principal, 'via'>> {
  const membership = await deps.orgs.queries.membershipOf(u.id);
  return {
    userId: u.id,
    email: u.email,
    fullName: u.full_name,
    isAdmin: u.is_admin,
    orgId: membership?.org_id ?? null,
    orgRole: membership?.role ?? null,
    sessionVersion: u.session_version ?? 0,
    emailVerified: u.email_verified ?? false,
    verificationRequired: !(u.email_verified ?? false) && (await settings(deps)).require_email_verification,
  };
}

export function authResolvers(deps: IdentityDeps): AuthResolvers {
  const { users, keys, clock } = deps;
  return {
    isApiKey: (token) => token.startsWith(API_KEY_PREFIX),
    userById: async (id) => {
      const u = await users.byId(id);
      return u ? await toPrincipal(deps, u) : null;
    },
    userByApiKey: async (token) => {
      const key = await keys.byHash(sha256(token));
      if (!key) return null;
      const u = await users.byId(key.user_id);
      if (!u) return null;
      const now = clock();
      // Kept up to date, without a write on every request of a busy script.
      if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) > 10_000) await keys.touch(key, now);
      return await toPrincipal(deps, u);
    },
  };
}

export function userDirectory({ users, orgs }: IdentityDeps): UserDirectory {
  return {
    getUsers: async (ids) => (await users.byIds(ids)).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
    listUsers: async () => (await users.all()).map((u) => ({ id: u.id, email: u.email, full_name: u.full_name })),
    listOrgs: () => orgs.listOrgs(),
  };
}

/** The quota account a user's analyses are charged to (their organisation's, or their own). */
export async function quotaAccount(deps: IdentityDeps, userId: string): Promise<string> {
  return quotaAccountOf({ userId, orgId: (await deps.orgs.queries.membershipOf(userId))?.org_id });
}

/** What identity keeps about a person, for their export (issue 30): the profile, organisation and API keys (never their hashes). */
export async function personalData(deps: IdentityDeps, userId: string) {
  const user = await deps.users.byId(userId);
  if (!user) return null;
  const membership = await deps.orgs.queries.membershipOf(userId);
  return {
    ...publicUser(user),
    organisation: membership ? { org_id: membership.org_id, role: membership.role } : null,
    api_keys: (await deps.keys.ofUser(userId)).map(publicKey),
    // What the audit log holds about them: what they did and what was done to their account (ADR 0023).
    audit_entries: await deps.audit.about(userId),
  };
}
