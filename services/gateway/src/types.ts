import type { AccessTokenVerifier, AuthResolvers, Config, Infrastructure, ServiceModule } from '@baret/platform';
import type { Logger } from 'pino';
import type { UpstreamRoutes } from './plugins/proxy.js';

/** The gateway mounts the routes of service modules; it never imports a service itself. */
export type RouteModule = Pick<ServiceModule, 'name' | 'routes' | 'tags'>;

export interface GatewayOptions {
  config: Config;
  logger: Logger;
  infra: Pick<Infrastructure, 'ready'>;
  auth: AuthResolvers;
  /** Distributed run: verifies access tokens with identity's public keys (docs/adr/0019); default: the keys of JWT_SECRET. */
  verifier?: AccessTokenVerifier;
  modules: RouteModule[];
  /** Distributed run: the services' public routes, proxied (docs/adr/0011). */
  proxy?: { upstreams: UpstreamRoutes[]; secret: string };
  /** Built web app to serve at /, with the SPA fallback; omitted in API-only runs. */
  webDir?: string;
  /** Public media (the landing page's demo video) served under /media. */
  mediaDir?: string;
  version?: string;
}
