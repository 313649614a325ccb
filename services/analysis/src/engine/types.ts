/**
 * Shared shapes of the analysis engine. The video pipeline, the person detector, the offline
 * analyzer and the OpenAI-compatible vision client all speak these.
 */
import type { ProbedVideo } from '@baret/platform';

/** What the pipeline knows of a video: the same shape the job service's prober answers. */
export type VideoInfo = ProbedVideo;

/** A body keypoint in pixels of the image it was detected in. */
export interface Keypoint {
  part: string;
  x: number;
  y: number;
  score: number;
}

export interface PersonDetection {
  /** [x, y, width, height] in pixels. */
  box: [number, number, number, number];
  score: number;
  keypoints: Keypoint[];
}

export interface SampledFrame {
  /** Order in the video, 0-based among the sampled frames. */
  index: number;
  timeSec: number;
  jpeg: Buffer;
  width: number;
  height: number;
  /** Person-focus score (larger, sharper workers score higher); absent for uniform sampling. */
  score?: number;
  persons?: PersonDetection[];
  /** The part of the video frame this frame shows, as fractions 0..1, when it was cropped around the workers (absent: all of it). */
  region?: RelBox;
}

export interface CompositeCell {
  frameIndex: number;
  timeSec: number;
  /**
   * The workers the sampler already detected in this frame, in pixels of the cell (so the
   * offline analyzer judges them without detecting again); absent when the sampler detected none.
   */
  persons?: PersonDetection[];
  /** The part of the video frame the cell shows, as fractions 0..1 (absent: all of it). */
  region?: RelBox;
  /** Where the frame sits in the composite, in pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Composite {
  /** 0-based. */
  index: number;
  jpeg: Buffer;
  width: number;
  height: number;
  cells: CompositeCell[];
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface EquipmentSighting {
  code: string;
  /** Which frame of the composite showed it, when the analyzer can tell. */
  frameIndex?: number;
  timeSec?: number;
  confidence?: number;
}

/** Whether one worker wears one item: seen worn, seen without it, or the image cannot tell. */
export type WearVerdict = 'worn' | 'not_worn' | 'unknown';

/**
 * Why a worker was judged without an item, where the analyzer can tell: a head in other headgear
 * (a cap, sun hat, beanie, hood — not a hard hat), or a bare head.
 */
export type NotWornReason = 'other_headgear' | 'bare_head';

/** A box as fractions (0..1) of its frame. */
export interface RelBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One worker in one frame, with a verdict per equipment code asked about. */
export interface WorkerSighting {
  frameIndex: number;
  timeSec: number;
  /** 1-based number of the worker in that frame, left to right. */
  worker: number;
  box: RelBox;
  verdicts: Record<string, WearVerdict>;
  /** For codes judged `not_worn`, what the worker had instead, when the analyzer can tell. */
  reasons?: Record<string, NotWornReason>;
  /**
   * For codes judged in this frame, how sure the analyzer is of its verdict (0..1: the learned
   * model's probability of the class it chose), when it can say. The worker's verdict over the
   * whole track weighs each frame by it, and the evidence is the surest frame (issue 51).
   */
  confidence?: Record<string, number>;
  /**
   * Codes left undecided in this frame for a reason that holds for the worker, not the frame
   * (issue 51: reflective tape sewn on the torso's garment — a safety garment of a colour the model
   * does not know). A worker with as many such frames as a violation needs is never judged without
   * the code.
   */
  undecidable?: Record<string, 'reflective_tape'>;
  /** What the worker looks like (the colours of their clothes, engine/appearance.ts), when the analyzer can say: it helps follow them. */
  look?: number[];
}

export interface CompositeAnalysis {
  /** Equipment codes seen worn or in use. */
  seen: EquipmentSighting[];
  /** Codes the analyzer saw to be missing on a visible worker (e.g. a bare head). */
  missing: string[];
  /** Codes asked about that this analyzer cannot check at all. */
  notChecked: string[];
  /** How many workers were visible, when known. */
  persons?: number;
  /** Each worker of each frame with their verdicts, when the analyzer can tell workers apart. */
  workers?: WorkerSighting[];
  /** What each frame looks like (engine/appearance.ts), when the analyzer can say: a cut between shots shows in it. */
  frameLooks?: Array<{ frameIndex: number; look: number[] }>;
  usage: TokenUsage;
}

export interface TaskOption {
  slug: string;
  name: string;
}

export interface EquipmentOption {
  code: string;
  title: string;
  description?: string;
}

export interface Classification {
  slug: string;
  confidence?: number;
  usage: TokenUsage;
}

/** A vision model: an OpenAI-compatible endpoint, or the offline analyzer. */
export interface VisionAnalyzer {
  /** Shown to users as `model_used`: names honestly what ran. */
  readonly modelName: string;
  /**
   * True when the composites leave Baret (a third-party vision model): an organisation may let
   * them go unblurred (`blur_third_party` false, issue 30); an in-process model always sees what is stored.
   */
  readonly thirdParty?: boolean;
  classifyJob(composites: Composite[], tasks: TaskOption[], signal?: AbortSignal): Promise<Classification>;
  analyzeComposite(
    composite: Composite,
    ask: { equipment: EquipmentOption[] },
    signal?: AbortSignal,
  ): Promise<CompositeAnalysis>;
}
