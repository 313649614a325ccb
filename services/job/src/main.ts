import { baretVersion, clockOf, runService } from '@baret/platform';
import { probeVideo } from '@baret/platform/probe';
import { createJobService } from './service.js';

/** The job service as its own process (distributed run, docs/adr/0011). */
await runService(
  'job',
  async ({ config, log, infra, clients, scratchDir }) => {
    const job = createJobService({
      eventStore: infra.eventStore,
      documents: infra.documents,
      objects: infra.objects,
      bus: infra.bus,
      quota: clients.quota(),
      tasks: clients.tasks(),
      probe: (path) => probeVideo(path),
      maxUploadBytes: config.UPLOAD_MAX_BYTES,
      uploadExpiryHours: config.UPLOAD_EXPIRY_HOURS,
      scratchDir,
      log,
      clock: clockOf(config),
      exportSources: clients.personalData(),
      retentionDays: config.RETENTION_DAYS,
      retentionSweepMinutes: config.RETENTION_SWEEP_MINUTES,
      readCacheItems: config.READ_CACHE_ITEMS,
      // The name of an organisation created before the service followed org-events (issue 54).
      directory: config.IDENTITY_URL ? clients.directory() : undefined,
    });
    return { modules: [job.module], projections: job.projections };
  },
  baretVersion(),
);
