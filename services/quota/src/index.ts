export { createQuotaService, type QuotaService, type QuotaOptions } from './service.js';
export { PRESETS } from './quota/quota.js';
export { QUOTA_EXCEEDED_MESSAGE, QUOTA_EXCEEDED_MESSAGE_EN } from './quota/businessLogic.js';
