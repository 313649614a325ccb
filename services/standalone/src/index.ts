export { createStandalone, type Standalone, type StandaloneOptions } from './compose.js';
