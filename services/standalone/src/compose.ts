import {
  clockOf,
  csv,
  publicUrlOf,
  createEmbeddedInfrastructure,
  prepareScratchDir,
  scratchDirOf,
  runProjection,
  superviseTask,
  runRelay,
  type BackgroundTask,
  type Checkpoint,
  type Config,
  type Infrastructure,
  type Projection,
  type QuotaClient,
  type ServiceModule,
  type SqliteMessageBus,
} from '@baret/platform';
import { createAnalysisService, type AnalysisOptions } from '@baret/analysis';
import { buildGateway } from '@baret/gateway';
import { createIdentityService, ssoOptionsFromConfig, type ScryptParams } from '@baret/identity';
import { createJobService } from '@baret/job';
import { createNotificationService } from '@baret/notification';
import { createQuotaService } from '@baret/quota';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import type { Logger } from 'pino';

export interface Standalone {
  app: FastifyInstance;
  infra: Infrastructure;
  identity: ReturnType<typeof createIdentityService>;
  quota: ReturnType<typeof createQuotaService>;
  notification: ReturnType<typeof createNotificationService>;
  job: ReturnType<typeof createJobService>;
  analysis: ReturnType<typeof createAnalysisService>;
  /** Deletes the bus log's messages every consumer has handled; returns how many (issue 30). */
  pruneBus(): number;
  /** Stops background work and closes the stores. The app is closed separately. */
  stop(): Promise<void>;
}

export interface StandaloneOptions {
  config: Config;
  logger: Logger;
  webDir?: string;
  version?: string;
  clock?: () => Date;
  /** Tests lower the password hashing cost. */
  scrypt?: ScryptParams;
  /** Start background tasks (relay, projections, consumers); default true. */
  background?: boolean;
  /** Tests may swap the vision analyzer or the person detector. */
  analysis?: Pick<AnalysisOptions, 'analyzer' | 'detect'>;
}

/** The services of the embedded run, each on the shared stores, wired to each other through client interfaces. */
interface Services {
  identity: ReturnType<typeof createIdentityService>;
  quota: ReturnType<typeof createQuotaService>;
  notification: ReturnType<typeof createNotificationService>;
  analysis: ReturnType<typeof createAnalysisService>;
  job: ReturnType<typeof createJobService>;
}

/** What every service is built with: the stores, the options, the log, the clock and the scratch folder. */
interface Wiring {
  opts: StandaloneOptions;
  infra: Infrastructure;
  log: Logger;
  clock: (() => Date) | undefined;
  scratchDir: string;
}

/**
 * The composition root of the embedded run: every service on embedded adapters in one process,
 * behind one gateway. Services reach each other only through the client interfaces of
 * @baret/platform, wired here.
 */
export async function createStandalone(opts: StandaloneOptions): Promise<Standalone> {
  const { config, logger: log } = opts;
  // BARET_CLOCK_OFFSET moves the clock for tests and drills (retention); a test may pass its own.
  const clock = opts.clock ?? (config.BARET_CLOCK_OFFSET ? clockOf(config) : undefined);
  const scratchDir = scratchDirOf(config);
  // Whatever a killed process left in the scratch folder (partial uploads, copies of videos) goes now.
  const swept = prepareScratchDir(scratchDir);
  if (swept.length > 0) log.info({ count: swept.length, dir: scratchDir }, 'removed temporary files left by an earlier run');
  const infra = await createEmbeddedInfrastructure(config, log, clock);
  const pruneBus = busPruner(infra.bus, log);
  const services = composeServices({ opts, infra, log, clock, scratchDir });
  const { identity, quota, notification, job, analysis } = services;

  const modules: ServiceModule[] = [identity.module, quota.module, notification.module, job.module, analysis.module];
  const projections: Projection[] = [...identity.projections, ...quota.projections, ...job.projections];
  const tasks = backgroundTasks(infra, modules, projections, pruneBus, log);

  await identity.promoteConfiguredAdmins();

  const controller = new AbortController();
  const running = opts.background === false
    ? []
    : tasks.map((task) => superviseTask(task, controller.signal, log));

  const app = await buildGateway({
    config,
    logger: log,
    infra,
    auth: identity.auth,
    modules,
    webDir: opts.webDir,
    mediaDir: join(config.BARET_DATA_DIR, 'media'),
    version: opts.version,
  });
  return {
    app,
    infra,
    identity,
    quota,
    notification,
    job,
    analysis,
    pruneBus,
    stop: async () => {
      controller.abort();
      await Promise.all(running);
      notification.close();
      await infra.close();
    },
  };
}

/** Deletes the bus log's messages every consumer has handled; returns how many (0 when it cannot). */
function busPruner(bus: Infrastructure['bus'], log: Logger): () => number {
  return (): number => {
    try {
      return (bus as SqliteMessageBus).prune();
    } catch (err) {
      log.warn({ err }, 'could not prune the bus log');
      return 0;
    }
  };
}

/** Every service, in the order they depend on each other (identity and quota need each other: bound late). */
function composeServices(w: Wiring): Services {
  const { identity, quota } = identityAndQuota(w);
  const notification = notificationService(w);
  const analysis = createAnalysisService({
    config: w.opts.config,
    documents: w.infra.documents,
    objects: w.infra.objects,
    bus: w.infra.bus,
    log: w.log.child({ service: 'analysis' }),
    clock: w.clock,
    scratchDir: w.scratchDir,
    ...w.opts.analysis,
  });
  const job = jobService(w, { quota, analysis, identity, notification });
  return { identity, quota, notification, analysis, job };
}

function identityAndQuota(w: Wiring): Pick<Services, 'identity' | 'quota'> {
  const { opts, log, clock } = w;
  const { config } = opts;
  const { eventStore, documents, bus } = w.infra;
  // identity needs quota (for /auth/me) and quota needs identity's user directory: bind late.
  const late: { quota?: QuotaClient } = {};
  const quotaProxy: QuotaClient = {
    getQuota: (id) => late.quota!.getQuota(id),
    reserve: (u, j) => late.quota!.reserve(u, j),
    release: (u, j, r) => late.quota!.release(u, j, r),
  };
  const identity = createIdentityService({
    eventStore,
    documents,
    bus,
    quota: quotaProxy,
    adminEmails: config.BARET_ADMIN_EMAILS,
    log: log.child({ service: 'identity' }),
    clock,
    deviceSecret: config.JWT_SECRET,
    scrypt: opts.scrypt,
    sso: ssoOptionsFromConfig(config),
  });
  const quota = createQuotaService({ eventStore, documents, bus, directory: identity.directory, log: log.child({ service: 'quota' }), clock });
  late.quota = quota.client;
  return { identity, quota };
}

function notificationService(w: Wiring): Services['notification'] {
  const { config } = w.opts;
  const { eventStore, documents, bus } = w.infra;
  return createNotificationService({
    eventStore,
    documents,
    bus,
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
    log: w.log.child({ service: 'notification' }),
    clock: w.clock,
  });
}

function jobService(w: Wiring, s: Pick<Services, 'quota' | 'analysis' | 'identity' | 'notification'>): Services['job'] {
  const { config } = w.opts;
  const { eventStore, documents, bus } = w.infra;
  return createJobService({
    eventStore,
    documents,
    objects: w.infra.objects,
    bus,
    quota: s.quota.client,
    tasks: s.analysis.catalogClient,
    probe: s.analysis.probe,
    maxUploadBytes: config.UPLOAD_MAX_BYTES,
    uploadExpiryHours: config.UPLOAD_EXPIRY_HOURS,
    scratchDir: w.scratchDir,
    log: w.log.child({ service: 'job' }),
    clock: w.clock,
    // The export's other parts, straight from the services that keep them (the audit entries about the person are in profile.json).
    exportSources: [
      { file: 'profile.json', collect: (p) => s.identity.personalData(p.userId) },
      { file: 'notifications.json', collect: (p) => s.notification.personalData(p.userId) },
    ],
    retentionDays: config.RETENTION_DAYS,
    retentionSweepMinutes: config.RETENTION_SWEEP_MINUTES,
    readCacheItems: config.READ_CACHE_ITEMS,
    directory: s.identity.directory,
  });
}

/** The relay, the bus log's pruning, every projection's runner and every module's own tasks. */
function backgroundTasks(infra: Infrastructure, modules: ServiceModule[], projections: Projection[], pruneBus: () => number, log: Logger): BackgroundTask[] {
  const { eventStore, documents, bus } = infra;
  return [
    {
      name: 'relay',
      run: (signal) =>
        runRelay({ name: 'relay:embedded', eventStore, bus, checkpoints: documents.collection<Checkpoint>('checkpoints'), log, signal }),
    },
    {
      // The embedded bus log keeps no message every consumer has handled (issue 30: an erased
      // person's data must not stay behind in it).
      name: 'bus:prune',
      run: async (signal) => {
        while (!signal.aborted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 10 * 60_000);
            signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
          if (!signal.aborted) pruneBus();
        }
      },
    },
    ...projections.map((projection) => ({
      name: `projection:${projection.name}`,
      run: (signal: AbortSignal) => runProjection({ projection, eventStore, documents, signal, log }),
    })),
    ...modules.flatMap((m) => m.tasks ?? []),
  ];
}
