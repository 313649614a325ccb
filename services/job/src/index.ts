export { createJobService, jobPrefixes, type JobService, type JobOptions } from './service.js';
export { rebuildCompliance, COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS } from './readModels/compliance.js';
export { complianceDays, complianceDocs, complianceReport } from './compliance/queries.js';
