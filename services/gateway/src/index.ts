export { buildGateway } from './app.js';
export { serve } from '@baret/platform';
export type { GatewayOptions, RouteModule } from './types.js';
