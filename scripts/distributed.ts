/**
 * Runs distributed Baret on this machine: the engines that `bash scripts/bootstrap.sh --test`
 * installed (PostgreSQL, Kafka 4, FerretDB, MinIO), started on free loopback ports, and every
 * service as its own process, the gateway on PORT (default 8080). A process or an engine that dies
 * is started again (backoff with jitter), as Kubernetes would.
 *   npm run distributed                       one analysis worker, data in a temporary folder (removed at exit)
 *   npm run distributed -- --workers 2
 *   npm run distributed -- --data DIR         data kept in DIR across runs (Ctrl-C keeps it)
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { distributedEngines, startDistributedStack, type StackProcess } from './stack.js';

const repo = join(import.meta.dirname, '..');
const missing = Object.entries(distributedEngines()).filter(([, ok]) => !ok).map(([name]) => name);
if (missing.length > 0) {
  process.stderr.write(`Not installed: ${missing.join(', ')}. Run: bash scripts/bootstrap.sh --test\n`);
  process.exit(2);
}
const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const workers = Number(arg('--workers') ?? 1);
if (!Number.isInteger(workers) || workers < 1 || workers > 8) {
  process.stderr.write('--workers takes a whole number from 1 to 8\n');
  process.exit(2);
}
const data = arg('--data');
if (process.argv.includes('--data') && !data) {
  process.stderr.write('--data takes a folder\n');
  process.exit(2);
}
if (!existsSync(join(repo, 'web', 'dist', 'index.html'))) execFileSync('npm', ['run', 'build', '-w', 'web'], { cwd: repo, stdio: 'inherit' });

const say = (name: string, text: string) => process.stdout.write(`${name.padEnd(12)} ${text}\n`);
let ready = false;
const stack = await startDistributedStack({
  workers,
  gatewayPort: Number(process.env.PORT ?? 8080),
  dataDir: data ? resolve(data) : undefined,
  env: { BARET_ADMIN_EMAILS: process.env.BARET_ADMIN_EMAILS ?? '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
  onLine: (name: StackProcess, line) => {
    try {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if (entry.level !== 'info' || !/request completed|incoming request/.test(entry.msg ?? '')) say(name, `${entry.level} ${entry.msg}`);
    } catch {
      if (line.trim()) say(name, line.trimEnd());
    }
  },
  onEvent: (e) => {
    if (e.kind === 'started' && (ready || e.restart > 0)) say(e.name, `started again (pid ${e.pid ?? '?'}, restart ${e.restart})`);
    if (e.kind === 'died') say(e.name, `died${e.code !== null ? ` (exit code ${e.code})` : ''}: starting it again in ${(e.retryInMs / 1000).toFixed(1)} s`);
    if (e.kind === 'restart-failed') say(e.name, `not up yet: trying again in ${(e.retryInMs / 1000).toFixed(1)} s`);
  },
});
ready = true;
const rows = [
  ...stack.engineInfo.map((e) => `  ${e.name.padEnd(13)} pid ${String(e.pid() ?? '-').padEnd(8)} ${e.address}  (${e.version})`),
  ...[...stack.procs.entries()].map(([name, p]) => `  ${name.padEnd(13)} pid ${String(p.child.pid ?? '-').padEnd(8)} ${p.url}`),
];
process.stdout.write(
  `\nDistributed Baret is running on ${stack.gateway}\n` +
    `${rows.join('\n')}\n` +
    `  services' environment: ${stack.envFile}\n` +
    `  make an admin:  npm run admin -- --env ${stack.envFile} promote EMAIL\n` +
    `  data: ${stack.dataDir}${data ? ' (kept)' : ' (temporary: removed at exit; --data DIR keeps it)'}\n` +
    `A process or an engine that dies is started again. Ctrl-C stops everything${data ? ' and keeps the data' : ''}.\n`,
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
