export { createQuotaService, type QuotaService, type QuotaOptions } from './service.js';
export { PRESETS } from './quota/quota.js';
