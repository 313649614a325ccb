/**
 * The distributed run on one machine, for the end-to-end tests and the bench: it lives in
 * scripts/stack.ts (the operator's `npm run distributed` uses it too), re-exported here.
 */
export { distributedEngines, ENGINES, SERVICE_PROCESSES, startDistributedStack, type DistributedStack, type EngineName, type StackEvent, type StackOptions, type StackProcess } from '../../scripts/stack.js';
