/**
 * Organisations: one function per use case (create, invite, accept, members, remove), each
 * deciding on the organisation's stream and the user's membership stream. This only hands them
 * their dependencies: current.ts, invitations.ts, members.ts and settings.ts hold the use cases.
 */
import { withDeps } from '../useCase.js';
import { createOrg, current, currentOrNull, listOrgs } from './current.js';
import { createOrgDeps, type OrgsOptions } from './deps.js';
import { accept, invite, pendingInvites, previewInvite } from './invitations.js';
import { changeRole, joinBySso, members, removeMember, userDeleted } from './members.js';
import { changeSettings, passwordLoginAllowed, setPasswordLogin, settings, signInSettings } from './settings.js';

export { orgProjections, type OrgsOptions } from './deps.js';

export function createOrgs(opts: OrgsOptions) {
  const deps = createOrgDeps(opts);
  return {
    createOrg: withDeps(deps, createOrg),
    current: withDeps(deps, current),
    currentOrNull: withDeps(deps, currentOrNull),
    invite: withDeps(deps, invite),
    pendingInvites: withDeps(deps, pendingInvites),
    previewInvite: withDeps(deps, previewInvite),
    accept: withDeps(deps, accept),
    members: withDeps(deps, members),
    removeMember: withDeps(deps, removeMember),
    changeRole: withDeps(deps, changeRole),
    userDeleted: withDeps(deps, userDeleted),
    listOrgs: withDeps(deps, listOrgs),
    joinBySso: withDeps(deps, joinBySso),
    passwordLoginAllowed: withDeps(deps, passwordLoginAllowed),
    signInSettings: withDeps(deps, signInSettings),
    setPasswordLogin: withDeps(deps, setPasswordLogin),
    settings: withDeps(deps, settings),
    changeSettings: withDeps(deps, changeSettings),
    queries: deps.queries,
  };
}

export type Orgs = ReturnType<typeof createOrgs>;
