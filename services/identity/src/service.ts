/**
 * The identity service: users, registration, login, API keys, admins, organisations, single
 * sign-on and the audit log. This only wires them: each use case is a function in its resource's
 * folder (user/, apiKey/, org/, sso/, settings/, audit/), with its routes beside it in api.ts.
 */
import { API_KEY_PREFIX, type ServiceModule } from '@baret/platform';
import { identityRoutes } from './api.js';
import { auditRoutes } from './audit/api.js';
import { AUDIT } from './audit/auditLog.js';
import { identityCommands } from './commands.js';
import { createIdentityDeps } from './deps.js';
import { identityInternalRoutes } from './internal.js';
import type { IdentityOptions } from './options.js';
import { orgRoutes } from './org/api.js';
import { authResolvers, personalData, quotaAccount, userDirectory } from './principals.js';
import { API_KEYS } from './readModels/apiKeys.js';
import { INVITES, MEMBERSHIPS } from './readModels/orgs.js';
import { USERS } from './readModels/users.js';
import { ssoRoutes } from './sso/api.js';
import { withDeps } from './useCase.js';
import { promoteConfiguredAdmins } from './user/admins.js';

export { API_KEY_PREFIX };
export type { IdentityOptions } from './options.js';
export { ssoOptionsFromConfig, type SignInFact, type SsoOptions } from './sso/config.js';
export { PasswordLoginDisabledError } from './user/login.js';
export { RECENT_LOGIN_MS, ReauthenticationError } from './user/deletion.js';
export { SETTINGS, type IdentitySettings } from './settings/settings.js';
export { publicUser, type PublicUser } from './user/view.js';
export { publicKey } from './apiKey/commands.js';
export type { IdentityCommands } from './commands.js';

/** The identity service: users, registration, login, API keys, admins. */
export function createIdentityService(opts: IdentityOptions) {
  const deps = createIdentityDeps(opts);
  const { users, keys, orgs, audit, projections, changes } = deps;
  const commands = identityCommands(deps);
  const auth = authResolvers(deps);
  const directory = userDirectory(deps);
  const ssoEnabled = deps.oidc !== null;

  const module: ServiceModule = {
    name: 'identity',
    tags: [
      { name: 'auth', description: 'Registration, login, the current user and API keys' },
      { name: 'admin', description: 'Administration (admins only)' },
      { name: 'organisations', description: 'Organisations: members, roles and invitations' },
      { name: 'audit', description: 'The audit log: who viewed, downloaded, deleted or changed what, and every sign-in (managers of an organisation, admins)' },
    ],
    routes: async (app) => {
      await app.register(identityRoutes({ commands, users, keys, quota: opts.quota, quotaAccount: withDeps(deps, quotaAccount) }));
      await app.register(orgRoutes(orgs));
      await app.register(ssoRoutes({ commands, orgs, ssoEnabled }));
      await app.register(auditRoutes(audit));
    },
    tasks: audit.tasks,
    internal: identityInternalRoutes({ auth, directory, changes, personalData: withDeps(deps, personalData) }),
    indexes: {
      [USERS]: [{ email_lower: 1, deleted: 1 }, { deleted: 1, created_at: 1 }],
      [API_KEYS]: [{ token_hash: 1 }, { user_id: 1, created_at: -1 }],
      [MEMBERSHIPS]: [{ org_id: 1, joined_at: 1 }],
      [INVITES]: [{ token_hash: 1 }, { org_id: 1, created_at: -1 }],
      [AUDIT]: [{ sort_key: -1 }, { org_id: 1, sort_key: -1 }, { actor_id: 1, sort_key: -1 }, { object_id: 1, sort_key: -1 }],
    },
  };

  return {
    module,
    auth,
    directory,
    commands,
    users,
    keys,
    orgs,
    projections,
    changes,
    promoteConfiguredAdmins: withDeps(deps, promoteConfiguredAdmins),
    audit,
    personalData: withDeps(deps, personalData),
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
