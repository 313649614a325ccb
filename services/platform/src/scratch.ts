/**
 * Scratch files (uploads being received, a job's copy of its video) live in one folder of the
 * data dir (`BARET_SCRATCH_DIR`, default `$BARET_DATA_DIR/tmp`), never in the system's temp
 * folder, so that whatever a killed process left there is found and removed at the next start,
 * and removed again when the process exits.
 *
 * Nothing in it outlives its process: a job resumed after a restart fetches its video again from
 * the object store. One scratch folder belongs to one running process.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Creates the scratch folder and removes what a previous process left in it; returns what it removed. */
export function prepareScratchDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return clearScratchDir(dir);
}

/** Scratch entries are named `baret-…`; only those are ever removed, so a scratch folder pointed at a shared place loses nothing else. */
const OURS = /^baret-/;

/** Removes Baret's entries in the scratch folder (synchronous, so it can run in a process `exit` handler). */
export function clearScratchDir(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const ours = names.filter((n) => OURS.test(n));
  for (const name of ours) rmSync(join(dir, name), { recursive: true, force: true });
  return ours;
}
