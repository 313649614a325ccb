/**
 * The offline analyzer: the product's vision model when no OpenAI-compatible endpoint is
 * configured. It detects workers with `@vladmandic/human` (CenterNet + MoveNet on tfjs WASM, with
 * the weights shipped in the npm package) and checks two things with Baret's learned PPE classifier (engine/ppe.ts): hard hats
 * on heads and high-visibility clothing on torsos. Every other equipment code is reported as
 * not checked, never as present or missing.
 */
import sharp from 'sharp';
import { frameLook, workerLook } from './appearance.js';
import type { RawImage } from './detector.js';
import { analyzePersons, closeUpPpeRaw, frameFaces, judgeFrameRaw, noHardHat, type FoundFace, type HardHatVerdict, type HiVisVerdict, type PpePerson, type PpeScores } from './ppe.js';
import type {
  Classification,
  Composite,
  CompositeAnalysis,
  CompositeCell,
  EquipmentOption,
  EquipmentSighting,
  NotWornReason,
  TaskOption,
  VisionAnalyzer,
  WearVerdict,
} from './types.js';

const HAT_VERDICT: Record<HardHatVerdict, WearVerdict> = { seen: 'worn', headgear: 'not_worn', bare: 'not_worn', unknown: 'unknown' };
/** What a head without a hard hat had instead. */
const HAT_REASON: Partial<Record<HardHatVerdict, NotWornReason>> = { headgear: 'other_headgear', bare: 'bare_head' };
const HI_VIS_VERDICT: Record<HiVisVerdict, WearVerdict> = { seen: 'worn', absent: 'not_worn', unknown: 'unknown' };

/** Construction options: which equipment codes this analyzer can check. */
export interface OfflineAnalyzerOptions {
  /** Catalogue codes satisfied by a hard hat (safety helmet). */
  hardHatCodes: string[];
  /** Catalogue codes satisfied by high-visibility clothing (vest, jacket). */
  hiVisCodes: string[];
  /** Task slug returned by {@link OfflineAnalyzer.classifyJob}, which cannot classify. */
  fallbackTaskSlug: string;
  /** Who judges the cells: default in this thread ({@link judgeCells}); the service passes the detector pool's. */
  judge?: CellJudge;
}

/**
 * One worker as the offline analyzer saw it in one cell. Not part of `types.ts`: the offline
 * analyzer adds these to its {@link CompositeAnalysis} for evidence and measurement.
 */
export interface OfflinePersonFinding {
  frameIndex: number;
  timeSec: number;
  /** [x, y, width, height] in pixels of the cell's frame. */
  box: [number, number, number, number];
  /** The worker's head, [x, y, width, height] in pixels of the cell's frame, when placed. */
  head?: [number, number, number, number];
  hardHat: HardHatVerdict;
  hiVis: HiVisVerdict;
  scores: PpeScores;
}

/** {@link CompositeAnalysis} plus the per-person findings behind it. */
export interface OfflineCompositeAnalysis extends CompositeAnalysis {
  findings: OfflinePersonFinding[];
  /**
   * The faces BlazeFace found on each frame judged, at its default score, in pixels of the cell's
   * frame (issue 39): the judge's search, which the cover of the frame takes instead of its own
   * search of the whole frame. A frame not listed was not searched.
   */
  frameFaces?: Array<{ frameIndex: number; faces: FoundFace[] }>;
}

const ZERO_USAGE = { promptTokens: 0, completionTokens: 0 } as const;

/** Maps a verdict score above its threshold to a 0.5..0.95 confidence. */
function confidence(score: number, threshold: number, top: number): number {
  const t = Math.min(1, Math.max(0, (score - threshold) / Math.max(1e-6, top - threshold)));
  return Math.round((0.5 + 0.45 * t) * 100) / 100;
}

/** A verdict's probability, rounded for the journal (undefined stays undefined). */
const verdictConfidence = (p: number | undefined): number | undefined => (p === undefined ? undefined : Math.round(p * 1000) / 1000);

/** The offline {@link VisionAnalyzer}: hard hat and hi-vis only, by image heuristics. */
export class OfflineAnalyzer implements VisionAnalyzer {
  readonly modelName = 'baret-offline (human centernet+movenet, learned PPE classifier)';
  private readonly hardHatCodes: ReadonlySet<string>;
  private readonly hiVisCodes: ReadonlySet<string>;
  private readonly fallbackTaskSlug: string;
  private readonly judge: CellJudge;

  constructor(options: OfflineAnalyzerOptions) {
    this.hardHatCodes = new Set(options.hardHatCodes);
    this.hiVisCodes = new Set(options.hiVisCodes);
    this.fallbackTaskSlug = options.fallbackTaskSlug;
    this.judge = options.judge ?? judgeCells;
  }

  /** The offline analyzer cannot tell job types apart: the fallback task, confidence 0. */
  async classifyJob(_composites: Composite[], _tasks: TaskOption[], signal?: AbortSignal): Promise<Classification> {
    signal?.throwIfAborted();
    return { slug: this.fallbackTaskSlug, confidence: 0, usage: { ...ZERO_USAGE } };
  }

  /**
   * Runs the detector (or takes the sampler's detections of the frame) and the PPE verdicts on every
   * cell of the composite separately, so each sighting names its frame, and reports every worker with
   * a verdict per asked code (`workers`). A hard hat on any worker marks every asked hard-hat code `seen`; a
   * bare head, with no hard hat anywhere in the composite, marks them `missing`; likewise for
   * high-visibility clothing. Every other asked code is `notChecked`.
   */
  async analyzeComposite(composite: Composite, ask: { equipment: EquipmentOption[] }, signal?: AbortSignal): Promise<OfflineCompositeAnalysis> {
    signal?.throwIfAborted();
    const asked = [...new Set(ask.equipment.map((e) => e.code))];
    const hatAsked = asked.filter((c) => this.hardHatCodes.has(c));
    const hiVisAsked = asked.filter((c) => this.hiVisCodes.has(c) && !this.hardHatCodes.has(c));
    const notChecked = asked.filter((c) => !this.hardHatCodes.has(c) && !this.hiVisCodes.has(c));
    const result: OfflineCompositeAnalysis = { seen: [], missing: [], notChecked, workers: [], usage: { ...ZERO_USAGE }, findings: [] };
    if (hatAsked.length === 0 && hiVisAsked.length === 0) return result;

    // One call per cell, all at once: the detector pool judges them on all its threads in parallel.
    const judged = (await Promise.all(composite.cells.map((cell) => this.judge(composite.jpeg, [cell])))).flat();
    // The close-up pass (ADR 0027) is rationed: one frame per composite, the first, and only when
    // none of its frames shows a worker — the frames of a composite are neighbours in the video, and
    // a video with nobody in it (an empty site, a test pattern) pays two more person detections per
    // composite, not per frame.
    const first = judged.findIndex((v) => v !== null);
    if (first >= 0 && judged.every((v) => v === null || v.persons.length === 0)) {
      signal?.throwIfAborted();
      const closeUp = (await this.judge(composite.jpeg, [composite.cells[first]!], { pass: 'closeUp' }))[0];
      // The frame's faces are its frame pass's (the close-up pass does not search them).
      judged[first] = closeUp ? { ...closeUp, faces: judged[first]!.faces } : null;
    }
    let persons = 0;
    for (const [c, cell] of composite.cells.entries()) {
      signal?.throwIfAborted();
      const crop = judged[c];
      if (!crop) continue;
      if (crop.faces) (result.frameFaces ??= []).push({ frameIndex: cell.frameIndex, faces: crop.faces });
      if (crop.look) (result.frameLooks ??= []).push({ frameIndex: cell.frameIndex, look: crop.look });
      const found = crop.persons;
      persons = Math.max(persons, found.length);
      const ordered = [...found].sort((a, b) => a.box[0] - b.box[0]);
      for (const [i, p] of ordered.entries()) {
        result.findings.push({ frameIndex: cell.frameIndex, timeSec: cell.timeSec, box: p.box, ...(p.head ? { head: p.head } : {}), hardHat: p.hardHat, hiVis: p.hiVis, scores: p.scores });
        const verdicts: Record<string, WearVerdict> = {};
        const reasons: Record<string, NotWornReason> = {};
        const sure: Record<string, number> = {};
        const reason = HAT_REASON[p.hardHat];
        const hatSure = verdictConfidence(p.hardHat === 'seen' ? p.scores.hatProbability : noHardHat(p.hardHat) ? (p.scores.bareProbability ?? 0) + (p.scores.otherHeadgearProbability ?? 0) : undefined);
        const vestSure = verdictConfidence(p.hiVis === 'seen' ? p.scores.hiVisProbability : p.hiVis === 'absent' && p.scores.hiVisProbability !== undefined ? 1 - p.scores.hiVisProbability : undefined);
        for (const code of hatAsked) {
          verdicts[code] = HAT_VERDICT[p.hardHat];
          if (reason) reasons[code] = reason;
          if (hatSure !== undefined) sure[code] = hatSure;
        }
        const undecidable: Record<string, 'reflective_tape'> = {};
        for (const code of hiVisAsked) {
          verdicts[code] = HI_VIS_VERDICT[p.hiVis];
          if (vestSure !== undefined) sure[code] = vestSure;
          if ((p.scores.tape ?? 0) > 0) undecidable[code] = 'reflective_tape';
        }
        const [x, y, w, h] = p.box;
        result.workers!.push({
          frameIndex: cell.frameIndex,
          timeSec: cell.timeSec,
          worker: i + 1,
          box: { x: x / crop.width, y: y / crop.height, w: w / crop.width, h: h / crop.height },
          verdicts,
          ...(reason && hatAsked.length > 0 ? { reasons } : {}),
          ...(Object.keys(sure).length > 0 ? { confidence: sure } : {}),
          ...(Object.keys(undecidable).length > 0 ? { undecidable } : {}),
          ...(p.look ? { look: p.look } : {}),
        });
      }
    }
    signal?.throwIfAborted();
    result.persons = persons;

    const best = (pick: (f: OfflinePersonFinding) => boolean, score: (f: OfflinePersonFinding) => number): OfflinePersonFinding | undefined =>
      result.findings.filter(pick).sort((a, b) => score(b) - score(a))[0];
    const sightings = (codes: string[], f: OfflinePersonFinding, conf: number): EquipmentSighting[] =>
      codes.map((code) => ({ code, frameIndex: f.frameIndex, timeSec: f.timeSec, confidence: conf }));

    if (hatAsked.length > 0) {
      const hat = best((f) => f.hardHat === 'seen', (f) => f.scores.hardHat);
      if (hat) result.seen.push(...sightings(hatAsked, hat, confidence(hat.scores.hardHat, 0.3, 1)));
      else if (result.findings.some((f) => noHardHat(f.hardHat))) result.missing.push(...hatAsked);
    }
    if (hiVisAsked.length > 0) {
      const vest = best((f) => f.hiVis === 'seen', (f) => f.scores.hiVis);
      if (vest) result.seen.push(...sightings(hiVisAsked, vest, confidence(vest.scores.hiVis, 0.05, 0.4)));
      else if (result.findings.some((f) => f.hiVis === 'absent')) result.missing.push(...hiVisAsked);
    }
    return result;
  }
}

/**
 * Each cell's size and PPE verdicts (null for a cell too small to judge), and the faces found on it
 * at BlazeFace's default score (`faces`; not in a close-up pass).
 */
export type CellVerdicts = Array<{ width: number; height: number; persons: PpePerson[]; faces?: FoundFace[]; look?: number[] } | null>;

/** How a {@link CellJudge} looks at the cells. */
export interface CellJudgeOptions {
  /**
   * `frame` (default): the sampler's detections of each frame, or the detector's; `closeUp`: the
   * close-up pass alone (ADR 0027: the frame shrunk, for a worker cut by its edges), for frames
   * already judged and found without a worker.
   */
  pass?: 'frame' | 'closeUp';
}

/** Judges every cell of a composite: decodes it, and runs the detector and the PPE verdicts per cell. */
export type CellJudge = (compositeJpeg: Buffer, cells: CompositeCell[], opts?: CellJudgeOptions) => Promise<CellVerdicts>;

/**
 * The in-process {@link CellJudge}: CPU-heavy (the detector and the pixel statistics), so the
 * service runs it in the detector pool's threads, off the API's event loop (`detectorPool.ts`).
 * The sampler's detections of a frame (`cell.persons`) are reused; a frame without them is detected
 * here. Which frames get the close-up pass is the analyzer's choice ({@link OfflineAnalyzer.analyzeComposite}).
 */
export async function judgeCells(compositeJpeg: Buffer, cells: CompositeCell[], opts: CellJudgeOptions = {}): Promise<CellVerdicts> {
  const { width = 0, height = 0 } = await sharp(compositeJpeg).metadata();
  const out: CellVerdicts = [];
  for (const cell of cells) {
    const crop = await cropCell(compositeJpeg, width, height, cell);
    if (!crop) {
      out.push(null);
      continue;
    }
    // What the frame and each worker look like (appearance.ts): the tracker follows workers by it and sees cuts.
    const looked = (persons: PpePerson[]) => persons.map((p) => ({ ...p, look: workerLook(crop, p.box) }));
    if (opts.pass === 'closeUp') {
      out.push({ width: crop.width, height: crop.height, persons: looked(await closeUpPpeRaw(crop)), look: frameLook(crop) });
      continue;
    }
    const judged = cell.persons ? await withSamplerPersons(crop, cell.persons) : await judgeFrameRaw(crop, { closeUp: false });
    out.push({ width: crop.width, height: crop.height, ...judged, persons: looked(judged.persons), look: frameLook(crop) });
  }
  return out;
}

/** A cell judged on the sampler's persons, and its faces (one search, as {@link judgeFrameRaw}). */
async function withSamplerPersons(crop: RawImage, persons: NonNullable<CompositeCell['persons']>): Promise<{ persons: PpePerson[]; faces: FoundFace[] }> {
  const { faces, sure } = await frameFaces(crop);
  return { persons: await analyzePersons(crop, persons, undefined, sure), faces: faces.map((f) => ({ box: f.box, score: f.score })) };
}

/**
 * One cell of the composite (clipped to it), decoded alone: the same pixels as the whole composite
 * decoded and cut (JPEG decoding is exact), without holding the whole composite's pixels.
 */
async function cropCell(jpeg: Buffer, fullWidth: number, fullHeight: number, cell: CompositeCell): Promise<RawImage | null> {
  const x0 = Math.max(0, Math.floor(cell.x));
  const y0 = Math.max(0, Math.floor(cell.y));
  const x1 = Math.min(fullWidth, Math.floor(cell.x + cell.width));
  const y1 = Math.min(fullHeight, Math.floor(cell.y + cell.height));
  const width = x1 - x0;
  const height = y1 - y0;
  if (width < 8 || height < 8) return null;
  const data = await sharp(jpeg).extract({ left: x0, top: y0, width, height }).removeAlpha().toColourspace('srgb').raw().toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
}
