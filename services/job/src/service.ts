import {
  createAuditRecorder,
  quotaAccountOf,
  shredderOf,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type ObjectStore,
  type PersonalDataSource,
  type Projection,
  type QuotaClient,
  type ServiceModule,
  type TaskCatalogClient,
  type UserDirectory,
  type VideoProber,
} from '@baret/platform';
import type { Logger } from 'pino';
import { complianceRoutes } from './compliance/api.js';
import { exportRoutes } from './export.js';
import { jobRoutes } from './job/api.js';
import { cancel } from './job/cancel.js';
import type { JobDeps } from './job/deps.js';
import { recordProgress } from './job/progress.js';
import { purge } from './job/purge.js';
import { recordFinishedJobWithoutVideo } from './job/recordWithoutVideo.js';
import { remove } from './job/remove.js';
import { removeUserJobs } from './job/removeUserJobs.js';
import { review, reviewsOf } from './job/review.js';
import { submit, submitResumable } from './job/submit.js';
import { visibleJob } from './job/visibleJob.js';
import { COMPLIANCE, COMPLIANCE_DAYS, COMPLIANCE_PERIODS, complianceProjection } from './readModels/compliance.js';
import { applyJobEvent, JOBS, jobsProjection, USAGE, usageProjection, type JobDoc, type UsageDoc } from './readModels/jobs.js';
import { JobReadCache } from './readModels/jobsCache.js';
import { orgProfiles } from './readModels/orgs.js';
import { CREWS, SITES, siteCrewsProjection } from './readModels/siteCrews.js';
import { ObjectStoreDataStore } from './resumable/tusStore.js';
import { createRetention, retentionRoutes, type Retention } from './retention.js';
import { siteCrewRoutes } from './siteCrew/api.js';
import { createSitesCrews, type SitesCrews } from './siteCrew/handlers.js';
import { jobTasks } from './tasks.js';
import { tusPlugin } from './tus.js';

export { jobPrefixes } from './job/run.js';

export interface JobOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  objects: ObjectStore;
  bus: MessageBus;
  quota: QuotaClient;
  tasks: TaskCatalogClient;
  probe: VideoProber;
  maxUploadBytes: number;
  /** Folder for temporary files (the scratch folder of the data dir); default the system's temp folder. */
  scratchDir?: string;
  /** Hours after which an unused resumable upload is deleted (UPLOAD_EXPIRY_HOURS); default 24. */
  uploadExpiryHours?: number;
  log: Logger;
  clock?: () => Date;
  /** RETENTION_DAYS: the global retention period until an admin sets another; default 365. */
  retentionDays?: number;
  /** Other services' parts of a person's export (profile, notifications, audit entries), by file. */
  exportSources?: readonly PersonalDataSource[];
  /** RETENTION_SWEEP_MINUTES: how often jobs past their period are looked for (and at start); default 60. */
  retentionSweepMinutes?: number;
  /** READ_CACHE_ITEMS: most list items the read cache holds (0: no cache); default 20,000 (docs/adr/0019). */
  readCacheItems?: number;
  /** Identity's organisations: the name of one created before this service followed org-events (its reports name it). */
  directory?: Pick<UserDirectory, 'listOrgs'>;
}

/**
 * The job service: uploads, the job aggregate, job queries, admin cancel and delete, usage. Only
 * wires: the use cases are in job/ (one function each), the routes in job/api.ts, siteCrew/api.ts,
 * compliance/api.ts, retention.ts and export.ts, the background work in tasks.ts.
 */
export function createJobService(opts: JobOptions) {
  const uploadExpiryMs = Math.round((opts.uploadExpiryHours ?? 24) * 3600_000);
  const deps = jobDepsOf(opts, uploadExpiryMs);
  const use =
    <A extends unknown[], R>(useCase: (d: JobDeps, ...args: A) => R) =>
    (...args: A): R =>
      useCase(deps, ...args);
  const useCases = {
    submit: use(submit),
    submitResumable: use(submitResumable),
    cancel: use(cancel),
    remove: use(remove),
    review: use(review),
    purge: use(purge),
    removeUserJobs: use(removeUserJobs),
    recordProgress: use(recordProgress),
    recordFinishedJobWithoutVideo: use(recordFinishedJobWithoutVideo),
  };
  const { eventStore, documents, jobs, usage, cache, resumable, clock, log } = deps;
  const sitesCrews = createSitesCrews({ eventStore, documents, clock });
  const retention = createRetention({ documents, jobs, defaultDays: opts.retentionDays ?? 365, clock, purge: (id, reason) => useCases.purge(id, reason), log });
  const module: ServiceModule = {
    name: 'job',
    tags: [
      { name: 'jobs', description: 'Upload a video and follow its analysis' },
      { name: 'admin', description: 'Administration (admins only)' },
      { name: 'organisations', description: 'Organisations: members, roles and invitations' },
      { name: 'compliance', description: 'Sites, crews and compliance over time of an organisation (managers)' },
    ],
    routes: routesOf(opts, deps, { useCases, sitesCrews, retention }),
    tasks: jobTasks(deps, { bus: opts.bus, retention, retentionSweepMinutes: opts.retentionSweepMinutes, uploadExpiryMs }),
    indexes: {
      [JOBS]: [{ user_id: 1, created_at: -1 }, { created_at: -1 }, { org_id: 1, created_at: -1 }],
      [USAGE]: [{ total_cost: -1, email: 1 }],
      [COMPLIANCE]: [{ org_id: 1, status: 1, created_at: 1 }],
      [COMPLIANCE_DAYS]: [{ org_id: 1, day: 1 }],
      [COMPLIANCE_PERIODS]: [{ org_id: 1, interval: 1, day: 1 }],
      [SITES]: [{ org_id: 1, name: 1 }],
      [CREWS]: [{ org_id: 1, name: 1 }],
    },
  };

  return { module, projections: [deps.jobsView, usageProjection, complianceProjection, siteCrewsProjection], cache, sitesCrews, jobs, usage, resumable, retention, ...useCases };
}

export type JobService = ReturnType<typeof createJobService>;

/** What the use cases are given once: the stores, the clients, the read models, the cache, the audit log. */
function jobDepsOf(opts: JobOptions, uploadExpiryMs: number): JobDeps {
  const { eventStore, documents, objects, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  // Users' own job lists and jobs in memory, dropped as the jobs projection applies their events
  // (inline after a command here, and by this replica's catch-up runner for every replica's).
  const cache = new JobReadCache({ maxItems: opts.readCacheItems });
  const jobsView: Projection = {
    ...jobsProjection,
    async apply(event, docs, events) {
      const { jobId, owners } = await applyJobEvent(event, docs, events);
      cache.changed(jobId, owners);
    },
    caughtUp: () => cache.caughtUp(),
    stopped: () => cache.stopped(),
  };
  return {
    eventStore,
    documents,
    objects,
    quota: opts.quota,
    tasks: opts.tasks,
    probe: opts.probe,
    log,
    clock,
    jobs: documents.collection<JobDoc>(JOBS),
    usage: documents.collection<UsageDoc>(USAGE),
    cache,
    jobsView,
    audit: createAuditRecorder({ eventStore, source: 'job', clock, log }),
    shredder: shredderOf(eventStore),
    resumable: new ObjectStoreDataStore({ objects, expiryMs: uploadExpiryMs, now: clock, log: log.child({ component: 'tus' }) }),
    scratchDir: opts.scratchDir,
  };
}

/** The service's routes, in the order they are documented: jobs, sites and crews, compliance, retention, export, resumable uploads. */
function routesOf(
  opts: JobOptions,
  deps: JobDeps,
  parts: { useCases: Pick<JobService, 'submit' | 'submitResumable' | 'cancel' | 'remove' | 'review'>; sitesCrews: SitesCrews; retention: Retention },
): ServiceModule['routes'] {
  const { documents, jobs, usage, objects, cache, resumable, audit, clock, log } = deps;
  const { useCases, sitesCrews, retention } = parts;
  return async (app) => {
    await app.register(
      jobRoutes({
        submit: useCases.submit,
        submitResumable: useCases.submitResumable,
        visibleJob: (principal, jobId) => visibleJob(deps, principal, jobId),
        ownJobs: (userId, key, load) => cache.list(userId, key, load),
        cancel: useCases.cancel,
        remove: useCases.remove,
        review: useCases.review,
        reviewsOf,
        jobs,
        usage,
        objects,
        maxUploadBytes: opts.maxUploadBytes,
        scratchDir: opts.scratchDir,
        planOf: async (principal) => (await opts.quota.getQuota(quotaAccountOf(principal))).plan_name,
        unitNames: async (orgId) => {
          const [site, crew] = await Promise.all([sitesCrews.names(orgId, 'site'), sitesCrews.names(orgId, 'crew')]);
          return { site, crew };
        },
        orgProfile: orgProfiles(documents, opts.directory),
        audit,
        clock,
      }),
    );
    await app.register(siteCrewRoutes({ sitesCrews }));
    await app.register(complianceRoutes({ sitesCrews, documents, jobs, audit, clock }));
    await app.register(retentionRoutes(retention));
    await app.register(exportRoutes({ jobs, objects, sources: opts.exportSources ?? [], clock, log }));
    // Resumable (tus) uploads at /uploads, kept through the object store port.
    const uploads = { datastore: resumable, withOwner: resumable.withOwner.bind(resumable), ownerOf: resumable.ownerOf.bind(resumable) };
    await app.register(tusPlugin, { uploads, maxBytes: opts.maxUploadBytes });
  };
}
