/**
 * The person detector and the offline analyzer's cell verdicts run in worker threads, so the
 * API's event loop stays free while an analysis runs (tfjs on WASM computes synchronously for
 * hundreds of milliseconds per image). Threads start on first use, each loads its own detector,
 * and a call goes to the thread with the fewest calls in flight.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DetectOptions, DetectResult } from './detector.js';
import type { FaceBlurFn, FaceBlurOptions, FaceBlurResult } from './faceBlur.js';
import type { DetectFn } from './frames.js';
import type { CellJudge, CellJudgeOptions, CellVerdicts } from './offlineAnalyzer.js';
import type { CompositeCell } from './types.js';

/** Threads by default: the cores, at most 2 (each holds its own models, about 100 MB). */
export const DEFAULT_POOL_SIZE = Math.max(1, Math.min(2, availableParallelism()));

interface Slot {
  worker: Worker;
  inFlight: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  slot: Slot;
}

/**
 * The thread's entry: the compiled `detectorThread.js` next to this module, or, when run from the
 * TypeScript sources, a small `.mjs` that registers tsx's loader in the thread before importing
 * `detectorThread.ts` (a Worker does not inherit the main thread's loader hooks).
 */
function threadEntry(): { url: URL; workerData?: { script: string } } {
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return { url: new URL('./detectorThread.js', import.meta.url) };
  return { url: new URL('./detectorThread.boot.mjs', import.meta.url), workerData: { script: new URL('./detectorThread.ts', import.meta.url).href } };
}

export class DetectorPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(readonly size = DEFAULT_POOL_SIZE) {}

  /** {@link DetectFn} in a thread. */
  readonly detect: DetectFn = (jpeg, opts) => this.call('detect', [jpeg, opts]) as Promise<DetectResult>;

  /** {@link CellJudge} in a thread. */
  readonly judgeCells: CellJudge = (jpeg: Buffer, cells: CompositeCell[], opts?: CellJudgeOptions) => this.call('judgeCells', [jpeg, cells, opts]) as Promise<CellVerdicts>;

  /** The face blur (faceBlur.ts) in a thread. */
  readonly blurFaces: FaceBlurFn = async (jpeg: Buffer, opts?: FaceBlurOptions) => {
    const out = (await this.call('blurFaces', [jpeg, opts])) as Omit<FaceBlurResult, 'jpeg'> & { jpeg: Uint8Array };
    return { ...out, jpeg: Buffer.from(out.jpeg.buffer, out.jpeg.byteOffset, out.jpeg.byteLength) };
  };

  /** Starts every thread and loads its detector; resolves with the slowest initialisation. */
  async warmUp(): Promise<{ initMs: number }> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    const all = (await Promise.all(this.slots.map((slot) => this.callOn(slot, 'warmUp', [])))) as Array<{ initMs: number }>;
    return { initMs: Math.max(...all.map((a) => a.initMs)) };
  }

  /** Ends the threads; calls in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const { url, workerData } = threadEntry();
    const worker = new Worker(url, { workerData });
    worker.unref(); // an idle pool never keeps the process alive
    const slot: Slot = { worker, inFlight: 0 };
    worker.on('message', (msg: { id: number; value?: unknown; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      p.slot.inFlight--;
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.value);
    });
    const fail = (err: Error) => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      for (const [id, p] of this.pending) {
        if (p.slot !== slot) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`detector thread exited (${code})`)));
    return slot;
  }

  private pick(): Slot {
    if (this.slots.length < this.size && this.slots.every((s) => s.inFlight > 0)) this.slots.push(this.spawn());
    return this.slots.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  }

  private call(op: 'detect' | 'judgeCells' | 'blurFaces', args: [Buffer, (DetectOptions | CompositeCell[] | FaceBlurOptions | undefined)?, (CellJudgeOptions | undefined)?]): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the detector pool is closed'));
    return this.callOn(this.pick(), op, args);
  }

  private callOn(slot: Slot, op: string, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    slot.inFlight++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ id, op, args });
    });
  }
}
