export { buildGateway } from './app.js';
export { serve } from './server.js';
export type { GatewayOptions, RouteModule } from './types.js';
