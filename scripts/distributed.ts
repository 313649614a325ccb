/**
 * Runs distributed Baret on this machine: the engines that `bash scripts/bootstrap.sh --test`
 * installed (PostgreSQL, Kafka 4, FerretDB, MinIO), started on free loopback ports with data in a
 * temporary folder, and every service as its own process, the gateway on PORT (default 8080).
 *   npm run distributed              one analysis worker
 *   npm run distributed -- --workers 2
 * Ctrl-C stops everything and removes the data.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { distributedEngines, startDistributedStack } from '../tests/helpers/distributed.js';

const repo = join(import.meta.dirname, '..');
const missing = Object.entries(distributedEngines()).filter(([, ok]) => !ok).map(([name]) => name);
if (missing.length > 0) {
  process.stderr.write(`Not installed: ${missing.join(', ')}. Run: bash scripts/bootstrap.sh --test\n`);
  process.exit(2);
}
const at = process.argv.indexOf('--workers');
const workers = at > 0 ? Number(process.argv[at + 1]) : 1;
if (!Number.isInteger(workers) || workers < 1 || workers > 8) {
  process.stderr.write('--workers takes a whole number from 1 to 8\n');
  process.exit(2);
}
if (!existsSync(join(repo, 'web', 'dist', 'index.html'))) execFileSync('npm', ['run', 'build', '-w', 'web'], { cwd: repo, stdio: 'inherit' });

const stack = await startDistributedStack({
  workers,
  gatewayPort: Number(process.env.PORT ?? 8080),
  env: { BARET_ADMIN_EMAILS: process.env.BARET_ADMIN_EMAILS ?? '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
  onLine: (name, line) => {
    try {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if (entry.level !== 'info' || !/request completed|incoming request/.test(entry.msg ?? '')) process.stdout.write(`${name.padEnd(12)} ${entry.level} ${entry.msg}\n`);
    } catch {
      if (line.trim()) process.stdout.write(`${name.padEnd(12)} ${line.trimEnd()}\n`);
    }
  },
});
process.stdout.write(
  `\nDistributed Baret is running on ${stack.gateway}\n` +
    `  event store: PostgreSQL ${stack.engines.postgres}; bus: Kafka ${stack.engines.kafka}; read models: FerretDB; objects: MinIO (${stack.s3.endPoint})\n` +
    `  processes: ${[...stack.procs.keys()].join(', ')}\nCtrl-C stops everything.\n`,
);
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping…\n');
  void stack.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
