export { createNotificationService, NOTIFICATIONS, type NotificationService, type NotificationOptions, type NotificationDoc } from './service.js';
export { signatureHeader, stableUuid, retryDelayMs } from './engine.js';
export { isPrivateAddress, safeFetch, BlockedAddressError } from './safeHttp.js';
