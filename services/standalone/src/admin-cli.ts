/**
 * Operator commands on the embedded data: `npm run admin -- promote EMAIL`.
 * Safe to run while the server runs (SQLite WAL lets both write).
 */
import { ConfigError, createLogger, loadConfig } from '@baret/platform';
import { createStandalone } from './compose.js';

const USAGE = 'usage: npm run admin -- promote EMAIL';

async function main(argv: string[]): Promise<number> {
  const [command, email] = argv;
  if (command !== 'promote' || !email) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
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
