import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { apiKeyRoutes } from './apiKey/api.js';
import type { apiKeyQueries } from './readModels/apiKeys.js';
import { identitySettingsRoutes } from './settings/api.js';
import { accountRoutes, emailVerificationRoutes, passwordResetRoutes, profileRoutes, registerAndLoginRoutes, type UserRouteDeps } from './user/api.js';

interface Deps extends UserRouteDeps {
  keys: ReturnType<typeof apiKeyQueries>;
}

/** Registration, login, the current user and API keys; the account settings and help of admins. */
export const identityRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    registerAndLoginRoutes(instance, deps);
    passwordResetRoutes(instance, deps);
    emailVerificationRoutes(instance, deps);
    identitySettingsRoutes(instance, deps);
    profileRoutes(instance, deps);
    apiKeyRoutes(instance, deps);
    accountRoutes(instance, deps);
  };
