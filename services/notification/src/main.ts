import { baretVersion, csv, publicUrlOf, runService } from '@baret/platform';
import { createNotificationService } from './service.js';

/** The notification service as its own process (distributed run, docs/adr/0011). */
await runService(
  'notification',
  async ({ config, log, infra }) => {
    const notification = createNotificationService({
      eventStore: infra.eventStore,
      documents: infra.documents,
      bus: infra.bus,
      teamEmail: config.BARET_TEAM_EMAIL,
      smtpUrl: config.SMTP_URL,
      smtpFrom: config.SMTP_FROM,
      publicUrl: publicUrlOf(config),
      linksFromRequest: config.PUBLIC_URL === undefined,
      allowedOrigins: csv(config.CORS_ORIGINS),
      allowPrivateHosts: config.NOTIFY_ALLOW_PRIVATE_HOSTS,
      claimLeaseMs: config.NOTIFY_CLAIM_LEASE_MS,
      vapidKeys: config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY ? { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY } : undefined,
      webhookRetryBaseMs: config.NOTIFY_WEBHOOK_RETRY_BASE_MS,
      log,
    });
    return { modules: [notification.module], close: () => notification.close() };
  },
  baretVersion(),
);
