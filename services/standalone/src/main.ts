import { clearScratchDir, createLogger, loadConfigOrExit, scratchDirOf, startTelemetry } from '@baret/platform';
import { serve } from '@baret/gateway';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStandalone } from './compose.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function ensureWebBuilt(webDir: string, log: { info: (msg: string) => void }): void {
  if (existsSync(join(webDir, 'index.html'))) return;
  log.info('building the web app (first start)…');
  execFileSync('npm', ['run', 'build', '--workspace', 'web'], { cwd: repoRoot, stdio: 'inherit' });
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // Off by default: only when OTEL_* names an exporter (docs/adr/0014).
  const telemetry = await startTelemetry('embedded');
  const logger = createLogger(config.LOG_LEVEL);
  const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const webDir = config.WEB_DIST_DIR ? resolve(config.WEB_DIST_DIR) : join(repoRoot, 'web', 'dist');
  if (!config.WEB_DIST_DIR) ensureWebBuilt(webDir, logger);

  const standalone = await createStandalone({ config, logger, webDir, version });
  // However the process ends (SIGTERM after the grace period included), its temporary files go with it.
  const scratchDir = scratchDirOf(config);
  process.on('exit', () => clearScratchDir(scratchDir));
  const address = await serve(standalone.app, {
    host: config.HOST,
    port: config.PORT,
    log: logger,
    onShutdown: async () => {
      await standalone.stop();
      await telemetry.shutdown();
    },
    graceMs: config.SHUTDOWN_GRACE_MS,
  });
  logger.info({ address, dataDir: config.BARET_DATA_DIR, mode: config.BARET_MODE }, `Baret is running on ${address}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`Baret failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
