/**
 * `npm run train -- --from-review DIR` (issue 53, ADR 0033): the skeleton of fine-tuning on an
 * organisation's reviewed set (`GET /orgs/{id}/reviews/export`, unzipped in DIR). For now it reads
 * the set through the training's own label pipeline (data.ts: the same YOLO parsing and class
 * mapping as the shared training photos), checks it, and prints what a run would fine-tune; it
 * trains nothing (see ADR 0033 for what is left).
 */
import { listReviewedPhotos, listTrainingPhotos, type TrainingPhoto } from './data.js';

export interface ReviewedPlan {
  reviewed_set: string;
  photos: number;
  unlabelled: number;
  boxes: Record<string, number>;
  training_photos: number;
  steps: string[];
}

/** Boxes per kind and label (`head:hat`, `torso:none` …). */
export function countBoxes(photos: readonly TrainingPhoto[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of photos) for (const b of p.boxes) out[`${b.kind}:${b.label}`] = (out[`${b.kind}:${b.label}`] ?? 0) + 1;
  return out;
}

/** What `--from-review DIR` would do, from the set and the shared training photos (their sizes only are read). */
export async function planFromReview(dir: string, sizeOf: (file: string) => Promise<{ width: number; height: number }>): Promise<ReviewedPlan> {
  const reviewed = await listReviewedPhotos(dir, sizeOf);
  const training = await listTrainingPhotos(sizeOf);
  return {
    reviewed_set: dir,
    photos: reviewed.length,
    unlabelled: reviewed.filter((p) => p.boxes.length === 0).length,
    boxes: countBoxes(reviewed),
    training_photos: training.length,
    steps: [
      `detect persons on the ${reviewed.length} reviewed crops with the analyzer's detector (cached in tmp/ppe-train, as the shared photos)`,
      'plan head and torso crops from the labelled boxes (samples.ts planCrops) and write them with the shared photos’ (finetune/dump-crops.ts), all in the training fold',
      'fine-tune the head and torso backbones with their classifiers in TensorFlow (finetune/finetune.py, the same epochs and seed)',
      'check tfjs against TensorFlow and pick the thresholds on the shared hold-out fold (unchanged), then write the weights',
    ],
  };
}
