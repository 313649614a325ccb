export { createJobService, jobPrefixes, type JobService, type JobOptions } from './service.js';
