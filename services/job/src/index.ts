export { createJobService, jobPrefixes, type JobService, type JobOptions } from './service.js';
export { rebuildCompliance, COMPLIANCE } from './readModels/compliance.js';
