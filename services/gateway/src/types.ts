import type { AuthResolvers, Config, Infrastructure } from '@baret/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';

/**
 * What a service hands the gateway: its routes as a Fastify plugin, and the OpenAPI tags they use.
 * The gateway never imports a service; the composition root passes these in.
 */
export interface RouteModule {
  name: string;
  routes: FastifyPluginAsync;
  tags?: Array<{ name: string; description: string }>;
}

export interface GatewayOptions {
  config: Config;
  logger: Logger;
  infra: Pick<Infrastructure, 'ready'>;
  auth: AuthResolvers;
  modules: RouteModule[];
  /** Built web app to serve at /, with the SPA fallback; omitted in API-only runs. */
  webDir?: string;
  version?: string;
}
