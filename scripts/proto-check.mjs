// Fails when proto/gen is not what `npm run proto:gen` makes from proto/*.proto.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('../proto/', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'baret-proto-'));
try {
  cpSync(root, scratch, { recursive: true, filter: (src) => !src.includes(`${root}gen`) && !src.includes('node_modules') });
  const buf = new URL('../node_modules/.bin/buf', import.meta.url).pathname;
  const bin = new URL('../node_modules/.bin', import.meta.url).pathname;
  execFileSync(buf, ['generate'], { cwd: scratch, stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  const files = (dir) =>
    readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
  const want = new Map(files(join(scratch, 'gen')).map((f) => [relative(join(scratch, 'gen'), f), readFileSync(f, 'utf8')]));
  const have = new Map(files(join(root, 'gen')).map((f) => [relative(join(root, 'gen'), f), readFileSync(f, 'utf8')]));
  const stale = [...new Set([...want.keys(), ...have.keys()])].filter((k) => want.get(k) !== have.get(k));
  if (stale.length > 0) {
    console.error(`proto/gen is stale (${stale.join(', ')}): run npm run proto:gen and commit the result.`);
    process.exit(1);
  }
  console.log(`proto/gen is up to date (${have.size} files).`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
