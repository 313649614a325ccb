import { join, resolve } from 'node:path';
import {
  baretVersion,
  ConfigError,
  createLogger,
  httpAuthResolvers,
  loadConfig,
  repoRoot,
  serve,
  ServiceClient,
  startTelemetry,
  type Config,
} from '@baret/platform';
import { buildGateway } from './app.js';
import { fetchManifests, type Upstream } from './plugins/proxy.js';

/**
 * The gateway as its own process (distributed run, docs/adr/0011): the public edge in front of the
 * service processes, serving the web app.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, 'gateway');
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  // Traces first (off unless OTEL_* names an exporter, docs/adr/0014).
  const telemetry = await startTelemetry('gateway');
  const log = createLogger(config.LOG_LEVEL).child({ service: 'gateway' });
  const secret = config.SERVICE_SECRET!;
  const upstreams: Upstream[] = [
    { name: 'identity', url: config.IDENTITY_URL! },
    { name: 'quota', url: config.QUOTA_URL! },
    { name: 'job', url: config.JOB_URL! },
    { name: 'analysis', url: config.ANALYSIS_URL! },
    { name: 'notification', url: config.NOTIFICATION_URL! },
  ];
  const manifests = await fetchManifests(upstreams, secret, log);
  const health = upstreams.map((u) => new ServiceClient(u.name, u.url, secret, 'gateway', 3_000));
  const app = await buildGateway({
    config,
    logger: log,
    // Ready when every service says it is (each checks its own stores).
    infra: { ready: async () => void (await Promise.all(health.map((c) => c.call('GET', '/readyz', undefined, { attempts: 1 })))) },
    auth: httpAuthResolvers(new ServiceClient('identity', config.IDENTITY_URL!, secret, 'gateway')),
    modules: [],
    proxy: { upstreams: manifests, secret },
    webDir: config.WEB_DIST_DIR ? resolve(config.WEB_DIST_DIR) : join(repoRoot(), 'web', 'dist'),
    mediaDir: join(config.BARET_DATA_DIR, 'media'),
    version: baretVersion(),
  });
  const address = await serve(app, { host: config.HOST, port: config.PORT, log, graceMs: config.SHUTDOWN_GRACE_MS, onShutdown: telemetry.shutdown });
  log.info({ address }, `Baret gateway is running on ${address}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`Baret gateway failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
