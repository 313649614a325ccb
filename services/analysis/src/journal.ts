import { createHash } from 'node:crypto';
import type { Collection } from '@baret/platform';
import type { FrameMeta } from './engine/frames.js';
import type { CompositeAnalysis, CompositeCell, TokenUsage, VideoInfo } from './engine/types.js';

/** The journal of each running job (see `JournalDoc`). */
export const JOURNALS = 'analysis_journals';

/** One report of a step, as published: `key` names the step and makes its event id. */
export interface JournalEntry {
  key: string;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

/** Where a composite's frames sit in it (its pixels are rebuilt from the frames). */
export interface CompositeLayout {
  index: number;
  width: number;
  height: number;
  cells: CompositeCell[];
}

/**
 * What a job's analysis has done so far, one entry per step of the pipeline (pipeline.ts), written
 * when the step ends and before it is reported, so that a run interrupted by a crash resumes at the
 * step it had reached: steps already done are not redone (their reports are published again under
 * the same event ids, which the job service ignores), and composites already judged are not asked
 * again (their findings and token usage come from here).
 */
export interface JournalDoc extends Record<string, unknown> {
  reports: JournalEntry[];
  /** sample: the video and the frames chosen (no pixels: a resumed job decodes those frames again). */
  sampled?: { info: VideoInfo; frames: FrameMeta[] };
  /** judge: the composites' layout, the job type, each composite's analysis; `judged` once every composite is done. */
  layout?: CompositeLayout[];
  classification?: { jobType: string; usage: TokenUsage; confidence?: number | null };
  analyses: { index: number; analysis: CompositeAnalysis }[];
  judged?: boolean;
  /** cover: the frames' faces covered and the covered frames stored (`jobs/<id>/frames/…`); each frame's patches, in its pixels, by frame index. */
  covered?: { faces: number; patches?: Record<number, Array<[number, number, number, number]>> };
  /** store evidence: composites and violation crops stored. */
  stored?: { composites: number; crops: number };
}

/**
 * The event id of one step of one job: the same on every run, so that a step reported again
 * after a restart is recognised by the job service as already recorded.
 */
export function stepEventId(jobId: string, key: string): string {
  const h = createHash('sha256').update(`${jobId}\u0000${key}`).digest('hex');
  const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export class Journal {
  private constructor(
    private readonly collection: Collection<JournalDoc>,
    private readonly jobId: string,
    readonly doc: JournalDoc,
  ) {}

  static async open(collection: Collection<JournalDoc>, jobId: string): Promise<Journal> {
    return new Journal(collection, jobId, (await collection.get(jobId)) ?? { reports: [], analyses: [] });
  }

  has(key: string): boolean {
    return this.doc.reports.some((r) => r.key === key);
  }

  /** Stores the entries not recorded yet (and `change`) in one write; returns those to publish. */
  async record(entries: JournalEntry[], change?: (doc: JournalDoc) => void): Promise<JournalEntry[]> {
    const fresh = entries.filter((e) => !this.has(e.key));
    if (fresh.length === 0 && !change) return [];
    change?.(this.doc);
    this.doc.reports.push(...fresh);
    await this.collection.put(this.jobId, this.doc);
    return fresh;
  }
}
