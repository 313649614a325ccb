/**
 * One thread of the detector pool (`detectorPool.ts`): runs the person detector and the offline
 * analyzer's cell verdicts, the CPU-heavy parts of an analysis, away from the API's event loop.
 * Each message is `{ id, op, args }`; each answer `{ id, value }` or `{ id, error }`.
 */
import { parentPort } from 'node:worker_threads';
import { detectPersons, warmUpDetector, type DetectOptions } from './detector.js';
import { blurFaces, type FaceBlurOptions } from './faceBlur.js';
import { judgeCells, type CellJudgeOptions } from './offlineAnalyzer.js';
import type { CompositeCell } from './types.js';

export type ThreadRequest =
  | { id: number; op: 'detect'; args: [Uint8Array, DetectOptions | undefined] }
  | { id: number; op: 'judgeCells'; args: [Uint8Array, CompositeCell[], CellJudgeOptions | undefined] }
  | { id: number; op: 'blurFaces'; args: [Uint8Array, FaceBlurOptions | undefined] }
  | { id: number; op: 'warmUp'; args: [] };

const toBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

async function run(req: ThreadRequest): Promise<unknown> {
  switch (req.op) {
    case 'detect':
      return detectPersons(toBuffer(req.args[0]), req.args[1]);
    case 'judgeCells':
      return judgeCells(toBuffer(req.args[0]), req.args[1], req.args[2]);
    case 'blurFaces': {
      return blurFaces(toBuffer(req.args[0]), req.args[1]);
    }
    case 'warmUp':
      return warmUpDetector();
  }
}

parentPort?.on('message', (req: ThreadRequest) => {
  run(req).then(
    (value) => parentPort!.postMessage({ id: req.id, value }),
    (err: unknown) => parentPort!.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
