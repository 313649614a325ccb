import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Logger } from 'pino';
import type { PersonalDataSource, QuotaClient, TaskCatalogClient, UserDirectory } from './clients.js';
import { loadConfigOrExit, scratchDirOf, type Config, type ServiceName } from './config.js';
import { createDistributedInfrastructure, OWNED_CATEGORIES } from './distributed/infrastructure.js';
import type { Infrastructure } from './infrastructure.js';
import type { MongoDocumentStore } from './distributed/mongoDocumentStore.js';
import { createHttpApp } from './http/app.js';
import { authPlugin, OPEN_PATHS, type AuthResolvers } from './http/auth.js';
import { healthPlugin } from './http/health.js';
import { httpAuthResolvers, httpPersonalDataSource, httpQuotaClient, httpTaskCatalog, httpUserDirectory, INTERNAL_PREFIX, internalRoutes, ServiceClient } from './http/internal.js';
import { serve } from './http/serve.js';
import { notFoundProblem } from './http/problem.js';
import { rateLimitError, type RouteLimit } from './http/limits.js';
import { createLogger } from './logger.js';
import { runProjection, type Projection } from './projection.js';
import { runRelay, type Checkpoint } from './relay.js';
import { clearScratchDir, prepareScratchDir } from './scratch.js';
import type { BackgroundTask, ServiceModule } from './service.js';
import { startTelemetry } from './telemetry.js';
import { guardProcess, superviseTask } from './supervise.js';

/** A public route of a service, as the gateway learns it (`GET /internal/routes`). */
export interface PublicRoute {
  method: string;
  url: string;
  schema?: FastifySchema;
  /** `false`: the route is exempt from the gateway's rate limit (as in the embedded run). */
  rateLimit?: false;
  /** The route's own limit per user or API key, enforced by the gateway. */
  principalLimit?: RouteLimit;
}

/** What a service tells the gateway about its public API. */
export interface ServiceManifest {
  service: string;
  tags: Array<{ name: string; description: string }>;
  routes: PublicRoute[];
}

/** The clients of the other services, made on first use from their `*_URL` settings. */
export interface ServiceClients {
  quota(): QuotaClient;
  directory(): UserDirectory;
  auth(): AuthResolvers;
  tasks(): TaskCatalogClient;
  /** The parts of a person's export identity and notification keep (issue 30), for the services whose URLs are set. */
  personalData(): PersonalDataSource[];
}

export interface ServiceContext {
  name: ServiceName;
  config: Config;
  log: Logger;
  infra: Infrastructure;
  clients: ServiceClients;
  scratchDir: string;
}

export interface ServiceSetup {
  modules: ServiceModule[];
  projections?: Projection[];
  /** Runs once the stores are connected and before traffic (e.g. promote configured admins). */
  start?(): Promise<void>;
  close?(): Promise<void> | void;
}

export function serviceClients(config: Config, caller: string): ServiceClients {
  const client = (service: string, url: string | undefined) => {
    if (!url) throw new Error(`the ${caller} service needs ${service.toUpperCase()}_URL`);
    return new ServiceClient(service, url, config.SERVICE_SECRET!, caller);
  };
  return {
    quota: () => httpQuotaClient(client('quota', config.QUOTA_URL)),
    directory: () => httpUserDirectory(client('identity', config.IDENTITY_URL)),
    auth: () => httpAuthResolvers(client('identity', config.IDENTITY_URL)),
    tasks: () => httpTaskCatalog(client('analysis', config.ANALYSIS_URL)),
    personalData: () => [
      ...(config.IDENTITY_URL ? [httpPersonalDataSource(client('identity', config.IDENTITY_URL), 'profile.json')] : []),
      ...(config.NOTIFICATION_URL ? [httpPersonalDataSource(client('notification', config.NOTIFICATION_URL), 'notifications.json')] : []),
    ],
  };
}

/**
 * The HTTP server of one service process: the shared core, the service credential in place of
 * bearer tokens (only the gateway and other services get in), the service's public routes (the
 * gateway proxies them), its internal routes, health, and the list of its public routes.
 */
export async function buildServiceApp(opts: {
  name: ServiceName;
  config: Config;
  log: Logger;
  modules: ServiceModule[];
  ready: () => Promise<void>;
  version?: string;
}): Promise<FastifyInstance> {
  const { config } = opts;
  const app = await createHttpApp(config, opts.log, { trustAllProxies: true, behindGateway: true });
  const routes: PublicRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const url = route.url ?? route.path;
    if (url.startsWith(INTERNAL_PREFIX) || OPEN_PATHS.has(url)) return;
    const { rateLimit: limited, principalLimit } = (route.config ?? {}) as { rateLimit?: unknown; principalLimit?: RouteLimit };
    for (const method of methods)
      routes.push({ method, url, schema: route.schema, ...(limited === false ? { rateLimit: false as const } : {}), ...(principalLimit ? { principalLimit } : {}) });
  });
  await app.register(rateLimit, { global: false, errorResponseBuilder: rateLimitError });
  await app.register(authPlugin, { secret: config.JWT_SECRET, previousSecret: config.JWT_PREVIOUS_SECRET, expiresIn: config.JWT_EXPIRES_IN, serviceSecret: config.SERVICE_SECRET! });
  await app.register(healthPlugin, { ready: opts.ready, version: opts.version ?? '0.0.0' });
  for (const module of opts.modules) {
    if (module.routes) await app.register(module.routes);
    if (module.internal) await app.register(internalRoutes(module.internal));
  }
  const manifest: ServiceManifest = { service: opts.name, tags: opts.modules.flatMap((m) => m.tags ?? []), routes };
  // Behind internalRoutes' check like every /internal route: only a caller with a service credential.
  await app.register(internalRoutes(async (scope) => void scope.get('/routes', async () => manifest)));
  app.setNotFoundHandler(notFoundProblem);
  return app;
}

/**
 * Runs one service as its own process (the distributed run): configuration checked for what this
 * service needs, its stores, its relay and projections, its background tasks, and its HTTP server;
 * SIGTERM stops it gracefully.
 */
export async function runService(name: ServiceName, setup: (ctx: ServiceContext) => Promise<ServiceSetup>, version?: string): Promise<void> {
  const config = loadConfigOrExit(process.env, name);
  // Traces first: every span of the process needs the SDK (off unless OTEL_* names an exporter).
  const telemetry = await startTelemetry(name);
  const log = createLogger(config.LOG_LEVEL).child({ service: name });
  guardProcess(log);
  try {
    await startService(name, config, log, telemetry, setup, version);
  } catch (err) {
    // Even a failed start is one JSON line (an engine still down after the wait, a bad setting);
    // the supervisor (Kubernetes, npm run distributed) starts the process again.
    log.fatal({ err }, `${name} could not start: exiting`);
    process.exit(1);
  }
}

async function startService(
  name: ServiceName,
  config: Config,
  log: Logger,
  telemetry: Awaited<ReturnType<typeof startTelemetry>>,
  setup: (ctx: ServiceContext) => Promise<ServiceSetup>,
  version?: string,
): Promise<void> {
  if (telemetry.enabled) log.info({ otel_service: process.env.OTEL_SERVICE_NAME ?? `baret-${name}` }, 'traces exported (OpenTelemetry)');
  const scratchDir = scratchDirOf(config);
  prepareScratchDir(scratchDir);
  process.on('exit', () => clearScratchDir(scratchDir));

  const infra = await createDistributedInfrastructure(config, name, log);
  const ctx: ServiceContext = { name, config, log, infra, clients: serviceClients(config, name), scratchDir };
  const service = await setup(ctx);
  const documents = infra.documents as Partial<Pick<MongoDocumentStore, 'ensureIndexes'>>;
  for (const module of service.modules) {
    for (const [collection, indexes] of Object.entries(module.indexes ?? {})) await documents.ensureIndexes?.(collection, indexes);
  }
  await service.start?.();

  const categories = OWNED_CATEGORIES[name];
  const checkpoints = infra.documents.collection<Checkpoint>('checkpoints');
  const tasks: BackgroundTask[] = [
    ...(categories.length > 0
      ? [
          {
            name: `relay:${name}`,
            run: (signal: AbortSignal) =>
              runRelay({
                name: `relay:${name}`,
                eventStore: infra.eventStore,
                bus: infra.bus,
                checkpoints,
                categories,
                log,
                signal,
              }),
          },
        ]
      : []),
    ...(service.projections ?? []).map((projection) => ({
      name: `projection:${projection.name}`,
      run: (signal: AbortSignal) => runProjection({ projection, eventStore: infra.eventStore, documents: infra.documents, signal, log }),
    })),
    ...service.modules.flatMap((m) => m.tasks ?? []),
  ];
  const controller = new AbortController();
  // A task that fails (an engine down, a bug) starts again after a pause; the process stays up.
  const running = tasks.map((task) => superviseTask(task, controller.signal, log));

  const app = await buildServiceApp({ name, config, log, modules: service.modules, ready: () => infra.ready(), version });
  const address = await serve(app, {
    host: config.HOST,
    port: config.PORT,
    log,
    graceMs: config.SHUTDOWN_GRACE_MS,
    onShutdown: async () => {
      controller.abort();
      await Promise.all(running);
      await service.close?.();
      await infra.close();
      await telemetry.shutdown();
    },
  });
  log.info({ address, service: name }, `Baret ${name} is running on ${address}`);
}
