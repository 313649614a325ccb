/** Identity's use cases, each with its dependencies given: what the routes, the admin CLI and the tests call. */
import { createApiKey, deleteApiKey } from './apiKey/commands.js';
import type { IdentityDeps } from './deps.js';
import { changeSettings, settings } from './settings/settings.js';
import { signInWithSso, ssoStart } from './sso/signIn.js';
import { withDeps } from './useCase.js';
import { adminMail } from './user/adminMail.js';
import { promote } from './user/admins.js';
import { deleteUser, eraseAccount } from './user/deletion.js';
import { requestEmailVerification, verifyEmail } from './user/emailVerification.js';
import { login } from './user/login.js';
import { completePasswordReset, requestPasswordReset } from './user/passwordReset.js';
import { register } from './user/register.js';

export function identityCommands(deps: IdentityDeps) {
  return {
    register: withDeps(deps, register),
    login: withDeps(deps, login),
    ssoStart: withDeps(deps, ssoStart),
    signInWithSso: withDeps(deps, signInWithSso),
    ssoEnabled: () => deps.oidc !== null,
    createApiKey: withDeps(deps, createApiKey),
    deleteApiKey: withDeps(deps, deleteApiKey),
    deleteUser: withDeps(deps, deleteUser),
    eraseAccount: withDeps(deps, eraseAccount),
    promote: withDeps(deps, promote),
    requestPasswordReset: withDeps(deps, requestPasswordReset),
    completePasswordReset: withDeps(deps, completePasswordReset),
    requestEmailVerification: withDeps(deps, requestEmailVerification),
    verifyEmail: withDeps(deps, verifyEmail),
    adminMail: withDeps(deps, adminMail),
    settings: withDeps(deps, settings),
    changeSettings: withDeps(deps, changeSettings),
  };
}

export type IdentityCommands = ReturnType<typeof identityCommands>;
