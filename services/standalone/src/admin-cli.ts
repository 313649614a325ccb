/**
 * Operator commands: `npm run admin -- promote EMAIL` (or `node bin/baret.mjs admin promote EMAIL`),
 * `npm run admin -- seed-demo` (a demo organisation: 3 sites, 4 crews, 200 jobs over 12 weeks;
 * embedded) and `npm run admin -- rebuild-compliance` (the compliance read model replayed from
 * the job events; distributed: run where the job service's settings are).
 * Embedded: on the data dir, safe while the server runs (SQLite WAL lets both write). Distributed
 * (BARET_MODE=distributed, run where the identity service's settings are, e.g. in its container):
 * on the identity service's own event store and read models. `--env FILE` reads the settings from
 * a file of KEY=VALUE lines first (`npm run distributed` writes one and prints its path).
 */
import { ConfigError, createDistributedInfrastructure, createLogger, loadConfig, serviceClients } from '@baret/platform';
import { createIdentityService } from '@baret/identity';
import { rebuildCompliance } from '@baret/job';
import { seedDemo } from './seedDemo.js';
import { createStandalone } from './compose.js';

async function promoteDistributed(email: string): Promise<string> {
  const config = loadConfig(process.env, 'identity');
  const log = createLogger('warn');
  const infra = await createDistributedInfrastructure(config, 'identity', log);
  try {
    const identity = createIdentityService({
      eventStore: infra.eventStore,
      documents: infra.documents,
      quota: serviceClients(config, 'admin').quota(),
      adminEmails: '',
      log,
      deviceSecret: config.JWT_SECRET,
    });
    return (await identity.commands.promote(email)).email;
  } finally {
    await infra.close();
  }
}

const USAGE = 'usage: npm run admin -- [--env FILE] promote EMAIL | seed-demo | rebuild-compliance';

async function rebuildDistributed(): Promise<string> {
  const config = loadConfig(process.env, 'job');
  const infra = await createDistributedInfrastructure(config, 'job', createLogger('warn'));
  try {
    const r = await rebuildCompliance(infra.eventStore, infra.documents, 'admin-cli', new Date());
    return `Compliance rebuilt from ${r.events} job events: ${r.jobs} jobs.`;
  } finally {
    await infra.close();
  }
}

/** The embedded commands that need no argument, on the data dir (safe while the server runs). */
async function embedded(command: 'seed-demo' | 'rebuild-compliance'): Promise<number> {
  const config = loadConfig();
  const standalone = await createStandalone({ config, logger: createLogger('warn'), background: false });
  try {
    if (command === 'seed-demo') {
      const d = await seedDemo(standalone);
      process.stdout.write(
        `Demo organisation created: ${d.sites} sites, ${d.crews} crews, ${d.jobs} jobs over 12 weeks.\n` +
          `Log in as ${d.manager} (password ${d.password}) and open /dashboard/compliance.\n`,
      );
    } else {
      const r = await rebuildCompliance(standalone.infra.eventStore, standalone.infra.documents, 'admin-cli', new Date());
      process.stdout.write(`Compliance rebuilt from ${r.events} job events: ${r.jobs} jobs.\n`);
    }
    return 0;
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    await standalone.app.close();
    await standalone.stop();
  }
}

async function main(args: string[]): Promise<number> {
  let argv = args;
  // The services' environment as a file of KEY=VALUE lines (`npm run distributed` prints where it wrote it).
  if (argv[0] === '--env') {
    if (!argv[1]) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    process.loadEnvFile(argv[1]);
    argv = argv.slice(2);
  }
  const [command, email] = argv;
  if (command === 'rebuild-compliance' && process.env.BARET_MODE === 'distributed') {
    process.stdout.write(`${await rebuildDistributed()}\n`);
    return 0;
  }
  if (command === 'seed-demo' || command === 'rebuild-compliance') return embedded(command);
  if (command !== 'promote' || !email) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (process.env.BARET_MODE === 'distributed') {
    try {
      process.stdout.write(`${await promoteDistributed(email)} is now an admin.\n`);
      return 0;
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
  }
  const config = loadConfig();
  const standalone = await createStandalone({ config, logger: createLogger('warn'), background: false });
  try {
    const user = await standalone.identity.commands.promote(email);
    process.stdout.write(`${user.email} is now an admin.\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    await standalone.app.close();
    await standalone.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
