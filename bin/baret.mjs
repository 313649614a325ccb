#!/usr/bin/env node
// One command for every Baret process:  node bin/baret.mjs <service> [args]
//   embedded                       the whole product in one process (as `npm start`)
//   gateway | identity | quota | job | analysis | notification   one service of the distributed run
//   admin promote EMAIL            make a user an admin (embedded data dir)
// Runs the compiled JavaScript of `npm run build` (services/<name>/dist).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targets = {
  embedded: 'services/standalone/dist/main.js',
  admin: 'services/standalone/dist/admin-cli.js',
  gateway: 'services/gateway/dist/main.js',
  identity: 'services/identity/dist/main.js',
  quota: 'services/quota/dist/main.js',
  job: 'services/job/dist/main.js',
  analysis: 'services/analysis/dist/main.js',
  notification: 'services/notification/dist/main.js',
};

const [name, ...rest] = process.argv.slice(2);
const target = name ? targets[name] : undefined;
if (!target) {
  process.stderr.write(`usage: baret <${Object.keys(targets).join('|')}> [args]\n`);
  process.exit(2);
}
const file = join(root, target);
if (!existsSync(file)) {
  process.stderr.write(`${target} is missing: run "npm run build" first\n`);
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(file).href);
