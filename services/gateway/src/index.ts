export { buildGateway } from './app.js';
export { serve } from './server.js';
export type { GatewayOptions, RouteModule } from './types.js';
export { TUS_PATH, type ResumableUploads } from './plugins/tus.js';
