export { createStandalone, type Standalone, type StandaloneOptions, type BackgroundTask } from './compose.js';
