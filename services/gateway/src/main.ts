import { join, resolve } from 'node:path';
import {
  AccessTokenVerifier,
  baretVersion,
  createLogger,
  followPrincipalChanges,
  httpAuthResolvers,
  PrincipalCache,
  ServiceUnavailableError,
  type Jwks,
  loadConfigOrExit,
  repoRoot,
  serve,
  ServiceClient,
  startTelemetry,
} from '@baret/platform';
import { buildGateway } from './app.js';
import { fetchManifests } from './plugins/proxy.js';

/**
 * The gateway as its own process (distributed run, docs/adr/0011): the public edge in front of the
 * service processes, serving the web app.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env, 'gateway');
  // Traces first (off unless OTEL_* names an exporter, docs/adr/0014).
  const telemetry = await startTelemetry('gateway');
  const log = createLogger(config.LOG_LEVEL).child({ service: 'gateway' });
  const secret = config.SERVICE_SECRET!;
  // One client per service, for its routes, its readiness and (identity) who a token belongs to.
  const [identity, ...others] = (
    [
      ['identity', config.IDENTITY_URL!],
      ['quota', config.QUOTA_URL!],
      ['job', config.JOB_URL!],
      ['analysis', config.ANALYSIS_URL!],
      ['notification', config.NOTIFICATION_URL!],
    ] as const
  ).map(([name, url]) => new ServiceClient(name, url, secret, 'gateway'));
  const services = [identity!, ...others];
  // Who a token or API key belongs to: asked of identity once, then cached until identity says the
  // user changed (its change stream, followed in the background); tokens verified here with
  // identity's public keys (docs/adr/0019).
  const principals = new PrincipalCache(httpAuthResolvers(identity!));
  const following = new AbortController();
  const verifier = new AccessTokenVerifier(async (): Promise<Jwks> => {
    try {
      return (await identity!.call<Jwks>('GET', '/internal/jwks', undefined, { attempts: 2, timeoutMs: 3_000 }))!;
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'the access tokens\' keys could not be fetched from identity');
      throw new ServiceUnavailableError('A part of Baret is not reachable right now. Please try again in a moment.', { retryAfterSeconds: 1 });
    }
  });
  // Identity (re)connected, perhaps restarted with another key: fetch its key set again.
  const onConnected = () => void verifier.refresh().catch(() => undefined);
  void followPrincipalChanges({ identity: identity!, secret, cache: principals, log, signal: following.signal, onConnected });
  const manifests = await fetchManifests(services, log);
  const app = await buildGateway({
    config,
    logger: log,
    // Ready when every service says it is (each checks its own stores).
    infra: { ready: async () => void (await Promise.all(services.map((c) => c.call('GET', '/readyz', undefined, { attempts: 1, timeoutMs: 3_000 })))) },
    auth: principals,
    verifier,
    modules: [],
    proxy: { upstreams: manifests, secret },
    webDir: config.WEB_DIST_DIR ? resolve(config.WEB_DIST_DIR) : join(repoRoot(), 'web', 'dist'),
    mediaDir: join(config.BARET_DATA_DIR, 'media'),
    version: baretVersion(),
  });
  const address = await serve(app, { host: config.HOST, port: config.PORT, log, graceMs: config.SHUTDOWN_GRACE_MS, onShutdown: async () => {
      following.abort();
      await telemetry.shutdown();
    },
  });
  log.info({ address }, `Baret gateway is running on ${address}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`Baret gateway failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
