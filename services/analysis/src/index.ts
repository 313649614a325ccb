export { createAnalysisService, chooseAnalyzer, OFFLINE_FALLBACK_TASK, type AnalysisService, type AnalysisOptions } from './service.js';
export { MAX_ATTEMPTS } from './worker.js';
export { findTask, groupName, taskName, offlineCheckableCodes } from './catalog/index.js';
