/**
 * Step 1 of `npm run train`: runs the offline analyzer's own person detector (CenterNet + MoveNet
 * from `@vladmandic/human`, detector.ts) on every training photo and caches the persons, so the
 * classifier is trained on the head and torso crops the analyzer cuts at run time. Cached in
 * `tmp/ppe-train/detections.json` (the detector is deterministic; delete the file to redo it).
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { detectPersons, warmUpDetector } from '../../services/analysis/src/engine/detector.js';
import type { PersonDetection } from '../../services/analysis/src/engine/types.js';
import { listTrainingPhotos, readJsonCache, writeJsonCache, type TrainingPhoto } from './data.js';

export type Detections = Record<string, PersonDetection[]>;

export const photoKey = (p: Pick<TrainingPhoto, 'subset' | 'file'>): string => `${p.subset}/${p.file}`;

export async function sizeOf(file: string): Promise<{ width: number; height: number }> {
  const meta = await sharp(file).metadata();
  return { width: meta.width ?? 0, height: meta.height ?? 0 };
}

/** Detections for every photo (from the cache where present), in pixels of the original photo. */
export async function detectAll(photos: TrainingPhoto[], log: (s: string) => void = (s) => process.stderr.write(s)): Promise<Detections> {
  const cache = (await readJsonCache<Detections>('detections.json')) ?? {};
  const todo = photos.filter((p) => !(photoKey(p) in cache));
  if (todo.length > 0) await warmUpDetector();
  let done = 0;
  const started = performance.now();
  for (const p of todo) {
    const { persons } = await detectPersons(await readFile(p.imagePath));
    cache[photoKey(p)] = persons;
    done++;
    if (done % 25 === 0 || done === todo.length) {
      log(`\rdetect ${done}/${todo.length} (${((performance.now() - started) / done).toFixed(0)} ms/photo)`);
      await writeJsonCache('detections.json', cache);
    }
  }
  if (todo.length > 0) log('\n');
  return cache;
}

if (process.argv[1]?.endsWith('detect.ts')) {
  const photos = await listTrainingPhotos(sizeOf);
  const d = await detectAll(photos);
  console.log(`${Object.keys(d).length} photos, ${Object.values(d).reduce((s, p) => s + p.length, 0)} persons`);
}
