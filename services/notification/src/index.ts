export { createNotificationService, NOTIFICATIONS, type NotificationService, type NotificationOptions, type NotificationDoc } from './service.js';
