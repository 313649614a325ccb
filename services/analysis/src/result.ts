import type { Lang } from '@baret/platform';
import { equipmentTitle, groupName, taskName } from './catalog/index.js';
import type { CompositeAnalysis, CompositeCell, EquipmentSighting, NotWornReason, RelBox, TokenUsage, WearVerdict, WorkerSighting } from './engine/types.js';
import { toVideoBox, WorkerTracker } from './tracking.js';

export interface Evidence {
  code: string;
  composite_index: number;
  frame_index: number | null;
  frame_time_sec: number | null;
  confidence: number | null;
}

/**
 * A worker seen without a required group's equipment (issue 51): one per worker and group, decided
 * from every frame of the worker's track (see {@link Findings}). Its time range is the track's; its
 * evidence is the clearest frame of the track that showed the worker without it.
 */
export interface Violation {
  group: string[];
  /** 1-based number of the worker over the whole video, in order of first appearance (see `workers`). */
  worker: number;
  /** When the worker was first seen (the track's start). */
  time_sec: number;
  /** When the worker was last seen (the track's end; equals `time_sec` for one frame). */
  end_sec: number;
  /** Sampled frames of the track that showed the worker without it. */
  frames: number;
  /** Time of the evidence frame: the clearest frame of the track without it (large, confident). */
  evidence_sec: number;
  frame_index: number;
  composite_index: number;
  /** The worker's box in the evidence frame, 0..1 of that frame. */
  box: RelBox;
  /** What the worker had instead in the evidence frame (a cap or hat, a bare head), when the analyzer can tell. */
  reason: NotWornReason | null;
  /** How sure the verdict is, 0..1: the frames without it, each weighed by the analyzer's confidence, as a share of the frames judged. */
  confidence: number;
}

/** A worker's verdict on one group over their whole track: seen wearing it, seen without it, or not decidable from what was seen. */
export type ItemVerdict = 'worn' | 'missing' | 'cannot_tell';

/** One worker followed through the video, with one verdict per required group the analyzer judges. */
export interface WorkerReport {
  worker: number;
  first_sec: number;
  last_sec: number;
  /** Sampled frames that showed the worker. */
  frames: number;
  /** By group (its codes joined by commas): the verdict, and the frames that showed the group worn and without it. */
  items: Record<string, { verdict: ItemVerdict; frames_worn: number; frames_without: number; confidence: number | null }>;
}

/**
 * How a worker's track becomes verdicts (issue 51). A violation needs the item missing with
 * confidence (the analyzer's at least `sureWithout`, where it gives one) in at least
 * `minFramesWithout` frames of the track, and missing in at least `minShareWithout` of the frames
 * where it was judged, each frame weighed by the analyzer's confidence — or, for a worker who goes
 * without it for a while only (takes the hard hat off, puts it on later), in a run of
 * `minRunWithout` frames judged in a row (frames it could not judge do not break a run, a frame
 * with the item does). One blurred, turned or bent frame never decides, nor do frames the analyzer
 * could barely place either way; nor does a worker with as many frames as a violation needs that
 * showed a reason the item cannot be judged on them (`undecidable`: reflective tape on a garment of
 * a colour the model does not know). The item is worn when the frames that showed it worn weigh at least as much as
 * those without; otherwise the worker is *cannot tell*. A track seen in fewer than `minFrames`
 * frames of a shot sampled more often than that, or never judged for anything (too small, too far),
 * is not counted as a worker — a glimpse, a reflection, a false detection; a worker of a shot
 * sampled once (a cut before and after) is counted (a vision model's workers all count: the
 * glimpses are the built-in detector's fragments). A job that sampled `fewFrames` frames or fewer
 * (a very short video), or a shot it sampled that seldom (a slideshow of stills), decides from a
 * single sure frame: there is nothing more to judge from.
 */
export const TRACK_RULES = {
  minFramesWithout: 2,
  sureWithout: 0.7,
  minShareWithout: 0.6,
  minRunWithout: 3,
  minFrames: 2,
  fewFrames: 2,
} as const;

/** The words for a violation's reason, in the report's languages. */
export const REASON_NAMES: Record<NotWornReason, Record<Lang, string>> = {
  other_headgear: { tr: 'kep veya şapka, baret değil', en: 'cap or hat, not a hard hat' },
  bare_head: { tr: 'başı açık', en: 'bare head' },
};

/** What the result says when no sampled frame showed a worker. */
export const NO_WORKER_NOTE: Record<Lang, string> = {
  tr: 'Çalışan görülmedi — değerlendirilecek bir şey yok',
  en: 'No worker seen — nothing to judge',
};

/** Where the job type came from: chosen by the user, recognised by the model, or assumed. */
export type JobTypeSource = 'manual' | 'model' | 'fallback';

/** Violations (runs) kept per required group at most (the report shows the first ones of each). */
export const MAX_VIOLATIONS_PER_GROUP = 12;

/**
 * Whether a worker's verdicts violate a group (any of its codes satisfies it): at least one code of
 * the group seen not worn, and none seen worn or undecidable. A code without a verdict (not asked)
 * does not count.
 */
export function violates(verdicts: Record<string, WearVerdict>, group: readonly string[]): boolean {
  const judged = group.map((c) => verdicts[c]).filter((v): v is WearVerdict => v !== undefined);
  return judged.length > 0 && judged.every((v) => v === 'not_worn');
}

/** Whether a worker's verdicts show a group worn: one of its codes judged worn. */
const wears = (verdicts: Record<string, WearVerdict>, group: readonly string[]): boolean => group.some((c) => verdicts[c] === 'worn');

const groupKey = (group: readonly string[]): string => group.join(',');

/** The reason a worker went without a group: the first of the group's codes that carries one. */
const reasonFor = (reasons: Record<string, NotWornReason> | undefined, group: readonly string[]): NotWornReason | null =>
  group.map((c) => reasons?.[c]).find((r) => r !== undefined) ?? null;

/** One sighting of a worker, kept for the verdicts over the worker's whole track (its box in its own frame's fractions). */
type TrackSighting = Omit<WorkerSighting, 'worker' | 'look'> & { compositeIndex: number };

/**
 * What the analysis has learned so far, composite after composite: which equipment was seen
 * (first sighting kept as evidence), which worker went without a required group (violations),
 * which codes the analyzer cannot check.
 *
 * The rule (docs/adr/0003-analysis.md): a group with a violation is missing, never satisfied; a
 * group is satisfied when its equipment was seen and no worker went without it. Dedupe stops
 * asking about groups already settled as violated (or that the analyzer cannot check) but keeps
 * asking about satisfied groups, since a later worker can still go without them; early stop comes
 * only when every group is violated or uncheckable.
 *
 * Workers are followed across frames ({@link WorkerTracker}: position with the camera's movement
 * taken out, the colours of their clothes, cuts between shots), and each worker gets one verdict
 * per group from the whole track ({@link TRACK_RULES}): a violation per worker and group, with the
 * track's time range and its clearest frame without the item as evidence.
 *
 * No worker, no verdict: a group is missing only when a worker was seen without it (or the model
 * said so of what it saw); a group that no worker could be judged for — no worker in the video, or
 * none judged for it — is *not judged* (listed with `not_checked`, and in `not_judged`), never missing.
 */
export class Findings {
  readonly evidence = new Map<string, Evidence>();
  readonly notCheckable = new Set<string>();
  readonly seenMissing = new Set<string>();
  /** Groups the model said were missing, for a composite whose workers it did not list. */
  private readonly judgedGroups = new Set<string>();
  /** The most persons one composite reported (null: the analyzer never said). */
  private mostPersons: number | null = null;
  /** An analyzer that lists workers: the verdicts come from their tracks. */
  private workerLevel = false;
  /** The analyzer describes its frames (the built-in analyzer): its detector's fragments of a track are glimpses, not workers. */
  private describesFrames = false;
  private readonly tracker = new WorkerTracker();
  /** Every sighting of each track, by the tracker's number. */
  private readonly tracks = new Map<number, TrackSighting[]>();
  private readonly framesSeen = new Set<number>();
  private decided: { workers: WorkerReport[]; violations: Violation[] } | undefined;
  analyzed = 0;

  constructor(readonly requiredGroups: readonly string[][]) {}

  /**
   * Adds one composite's analysis (composites in order). `cells` tell which part of the video
   * frame each cell shows, so workers are followed in the coordinates of the whole frame. Returns
   * the groups a worker was seen without in this composite (a frame's word, not yet the verdict).
   */
  add(compositeIndex: number, analysis: CompositeAnalysis, cells: readonly CompositeCell[] = []): string[][] {
    this.analyzed += 1;
    this.decided = undefined;
    for (const s of analysis.seen) if (!this.evidence.has(s.code)) this.evidence.set(s.code, toEvidence(compositeIndex, s));
    for (const code of analysis.notChecked) this.notCheckable.add(code);
    for (const code of analysis.missing) this.seenMissing.add(code);
    if (analysis.persons !== undefined || analysis.workers !== undefined) this.mostPersons = Math.max(this.mostPersons ?? 0, analysis.persons ?? 0);
    if (!analysis.workers) {
      for (const group of this.requiredGroups) if (group.some((c) => analysis.missing.includes(c))) this.judgedGroups.add(groupKey(group));
      return this.requiredGroups.filter((g) => g.some((c) => analysis.missing.includes(c))).map((g) => [...g]);
    }
    this.workerLevel = true;
    if (analysis.frameLooks?.length) this.describesFrames = true;
    const violatedHere = new Map<string, string[]>();
    const sightings = analysis.workers;
    const frames = [...new Set([...cells.map((c) => c.frameIndex), ...sightings.map((w) => w.frameIndex)])].sort((a, b) => a - b);
    for (const frameIndex of frames) {
      this.framesSeen.add(frameIndex);
      const inFrame = sightings.filter((w) => w.frameIndex === frameIndex);
      const region = cells.find((c) => c.frameIndex === frameIndex)?.region;
      // A frame cropped around its workers (person-focus sampling) shows another part of the picture
      // than the frame before: its look says nothing of a cut.
      const look = region ? undefined : analysis.frameLooks?.find((f) => f.frameIndex === frameIndex)?.look;
      const ids = this.tracker.assign(
        frameIndex,
        inFrame.map((w) => ({ box: toVideoBox(w.box, region), ...(w.look ? { look: w.look } : {}) })),
        look,
      );
      for (const [i, w] of inFrame.entries()) {
        const track = this.tracks.get(ids[i]!) ?? [];
        this.tracks.set(ids[i]!, track);
        track.push({
          frameIndex: w.frameIndex,
          timeSec: w.timeSec,
          compositeIndex,
          box: w.box,
          verdicts: w.verdicts,
          ...(w.reasons ? { reasons: w.reasons } : {}),
          ...(w.confidence ? { confidence: w.confidence } : {}),
          ...(w.undecidable ? { undecidable: w.undecidable } : {}),
        });
        for (const group of this.requiredGroups) if (violates(w.verdicts, group)) violatedHere.set(groupKey(group), [...group]);
      }
    }
    return [...violatedHere.values()];
  }

  /** The workers and their verdicts, from every track so far (see {@link TRACK_RULES}). */
  private decide(): NonNullable<Findings['decided']> {
    if (this.decided) return this.decided;
    const few = this.framesSeen.size <= TRACK_RULES.fewFrames;
    const minFrames = few ? 1 : TRACK_RULES.minFrames;
    const minWithout = few ? 1 : TRACK_RULES.minFramesWithout;
    const judgedAnything = (t: TrackSighting[]) => t.some((s) => Object.values(s.verdicts).some((v) => v !== 'unknown'));
    const asksAnything = [...this.tracks.values()].some((t) => t.some((s) => Object.keys(s.verdicts).length > 0));
    // A track shorter than minFrames is a glimpse unless its shot was sampled no more often than it was seen.
    // (A vision model's workers are the model's word: each counts, however briefly seen.)
    const longEnough = (t: TrackSighting[]) => !this.describesFrames || t.length >= Math.min(minFrames, this.tracker.framesOfShotOf(t[0]!.frameIndex) || minFrames);
    const counted = [...this.tracks.entries()]
      .filter(([, t]) => longEnough(t) && (judgedAnything(t) || !asksAnything))
      .sort(([a], [b]) => a - b)
      .map(([, t]) => t);
    const workers: WorkerReport[] = [];
    const violations: Violation[] = [];
    for (const [n, track] of counted.entries()) {
      const worker = n + 1;
      const items: WorkerReport['items'] = {};
      // A shot the sampler looked at no more than fewFrames times is decided like a very short video.
      const shotFrames = this.tracker.framesOfShotOf(track[0]!.frameIndex);
      const minWithoutHere = this.describesFrames && shotFrames > 0 && shotFrames <= TRACK_RULES.fewFrames ? 1 : minWithout;
      for (const group of this.requiredGroups) {
        const judged = trackVerdict(track, group, minWithoutHere);
        if (!judged) continue;
        items[groupKey(group)] = judged.item;
        if (!judged.evidence || violations.filter((v) => groupKey(v.group) === groupKey(group)).length >= MAX_VIOLATIONS_PER_GROUP) continue;
        const best = judged.evidence;
        violations.push({
          group: [...group],
          worker,
          time_sec: track[0]!.timeSec,
          end_sec: track.at(-1)!.timeSec,
          frames: judged.item.frames_without,
          evidence_sec: best.timeSec,
          frame_index: best.frameIndex,
          composite_index: best.compositeIndex,
          box: best.box,
          reason: reasonFor(best.reasons, group),
          confidence: judged.item.confidence!,
        });
      }
      workers.push({ worker, first_sec: track[0]!.timeSec, last_sec: track.at(-1)!.timeSec, frames: track.length, items });
    }
    // In the order a reader follows the video: by when the worker was first seen, then the worker.
    violations.sort((a, b) => a.time_sec - b.time_sec || a.worker - b.worker);
    this.decided = { workers, violations };
    return this.decided;
  }

  /** Each worker seen without a required group (one per worker and group), decided from the whole track. */
  get violations(): Violation[] {
    return this.decide().violations;
  }

  /** The workers counted, each with a verdict per group. */
  get workers(): WorkerReport[] {
    return this.decide().workers;
  }

  isViolated = (group: readonly string[]): boolean => this.violations.some((v) => groupKey(v.group) === groupKey(group));
  /** A worker was judged for the group (worn or missing over their track), or the model said it was missing. */
  isJudged = (group: readonly string[]): boolean =>
    this.judgedGroups.has(groupKey(group)) || this.workers.some((w) => ['worn', 'missing'].includes(w.items[groupKey(group)]?.verdict ?? ''));

  /** Workers seen: those followed across frames and counted (see {@link TRACK_RULES}), or the most one composite reported (null: the analyzer never said). */
  get workersSeen(): number | null {
    if (this.workerLevel) return this.workers.length;
    return this.mostPersons;
  }
  /** Seen worn and never violated: with workers followed, some worker counted wears it (a glimpse's hard hat is not enough). */
  isSatisfied = (group: readonly string[]): boolean =>
    !this.isViolated(group) && group.some((c) => this.evidence.has(c)) && (!this.workerLevel || this.workers.some((w) => w.items[groupKey(group)]?.verdict === 'worn'));
  /** A group the analyzer cannot judge at all: every code of it is beyond what it checks. */
  isUncheckable = (group: readonly string[]): boolean => group.every((c) => this.notCheckable.has(c));

  /**
   * Codes still worth asking about. Without dedupe, every group's. With dedupe, only groups that
   * could still be violated: not already violated, not beyond what the analyzer checks.
   */
  codesToAsk(dedupe: boolean): string[] {
    const groups = dedupe ? this.requiredGroups.filter((g) => !this.isViolated(g) && !this.isUncheckable(g)) : this.requiredGroups;
    return [...new Set(groups.flat())];
  }

  /** Composites (or codes of them) a paid model was not asked about (dedupe): said in the result. */
  readonly notAsked: Array<{ composite_index: number; codes: string[] }> = [];

  /** Records what dedupe left out of a composite: every code asked elsewhere, or the whole composite. */
  skipped(compositeIndex: number, codes: readonly string[]): void {
    if (codes.length > 0) this.notAsked.push({ composite_index: compositeIndex, codes: [...codes] });
  }

  /** The sentence a result carries when dedupe left something unasked (the PDF shows `note`). */
  private notAskedNote(lang: Lang): string {
    const codes = new Set(this.notAsked.flatMap((n) => n.codes));
    const groups = this.requiredGroups.filter((g) => g.some((c) => codes.has(c))).map((g) => groupName(g, lang)).join('; ');
    const composites = this.notAsked.map((n) => n.composite_index + 1).join(', ');
    return lang === 'tr'
      ? `Eksik ekipmanı yeniden sorma açıktı: ${composites}. kompozitte yalnızca önceden değerlendirilmiş çalışanlar görüldüğünden model şunlar için yeniden sorulmadı: ${groups}.`
      : `"Don't ask again about missing equipment" was on: composite ${composites} showed only workers already judged, so the model was not asked again about: ${groups}.`;
  }

  result(args: {
    jobType: string;
    jobTypeSource: JobTypeSource;
    jobTypeConfidence: number | null;
    modelUsed: string;
    usage: TokenUsage;
    estimatedCost: number;
    currency: string;
  }) {
    const satisfiedGroups = this.requiredGroups.filter(this.isSatisfied);
    const missingGroups = this.requiredGroups.filter((g) => this.isViolated(g) || (!this.isSatisfied(g) && !this.isUncheckable(g) && this.isJudged(g)));
    const notChecked = this.requiredGroups.filter((g) => !this.isSatisfied(g) && !missingGroups.includes(g));
    // Checkable, but no worker could be judged for it: no worker in the video, or none judged.
    const notJudged = notChecked.filter((g) => !this.isUncheckable(g));
    const workersSeen = this.workersSeen;
    const noWorkerSeen = workersSeen === 0;
    // One item per satisfied group: the first of its codes that was seen. An analyzer that only
    // knows "a hard hat" reports every hard-hat code; the report names the group's first.
    const satisfied = [...new Set(satisfiedGroups.map((g) => g.find((c) => this.evidence.has(c))!))];
    const names = (lang: Lang) => ({
      job_display_name: taskName(args.jobType, lang),
      required_groups_name: this.requiredGroups.map((g) => groupName(g, lang)),
      missing_groups_name: missingGroups.map((g) => groupName(g, lang)),
      satisfied_equipment_name: satisfied.map((c) => equipmentTitle(c, lang)),
      not_checked_name: notChecked.map((g) => groupName(g, lang)),
      not_judged_name: notJudged.map((g) => groupName(g, lang)),
      evidence_names: Object.fromEntries(satisfied.map((c) => [c, equipmentTitle(c, lang)])),
      violation_group_names: this.violations.map((v) => groupName(v.group, lang)),
      violation_reasons: this.violations.map((v) => (v.reason ? REASON_NAMES[v.reason][lang] : null)),
      ...(noWorkerSeen ? { note: NO_WORKER_NOTE[lang] } : this.notAsked.length > 0 ? { note: this.notAskedNote(lang) } : {}),
    });
    // Each missing group with the violation that proves it, or null: no sampled frame showed the item.
    const missingEvidence = missingGroups.map((g) => {
      const at = this.violations.findIndex((v) => groupKey(v.group) === groupKey(g));
      return { group: [...g], violation: at >= 0 ? at : null };
    });
    return {
      job_type: args.jobType,
      job_type_source: args.jobTypeSource,
      job_type_confidence: args.jobTypeConfidence,
      required_groups: this.requiredGroups.map((g) => [...g]),
      missing_groups: missingGroups.map((g) => [...g]),
      satisfied_groups: satisfiedGroups.map((g) => [...g]),
      satisfied_equipment: satisfied,
      not_checked: notChecked.map((g) => [...g]),
      not_judged: notJudged.map((g) => [...g]),
      // Workers seen over the video (followed by the tracker), also counted per period by compliance (issue 28).
      workers_seen: workersSeen,
      no_worker_seen: noWorkerSeen,
      composites_processed: this.analyzed,
      // What dedupe did not ask the (paid) model about, per composite: nothing with the built-in analyzer.
      not_asked: this.notAsked.map((n) => ({ ...n, codes: [...n.codes] })),
      model_used: args.modelUsed,
      token_usage: {
        prompt_tokens: args.usage.promptTokens,
        completion_tokens: args.usage.completionTokens,
        total_tokens: args.usage.promptTokens + args.usage.completionTokens,
        estimated_cost: args.estimatedCost,
        currency: args.currency,
      },
      evidence: satisfied.map((c) => this.evidence.get(c)!),
      violations: this.violations.map((v) => ({ ...v, group: [...v.group], box: { ...v.box } })),
      // One verdict per worker and group over the worker's whole track (issue 51), "cannot tell" included.
      workers: this.workers,
      missing_evidence: missingEvidence,
      names: { tr: names('tr'), en: names('en') },
    };
  }
}

/**
 * Which codes each composite is asked about (issue 39). Without dedupe (and always with the
 * built-in analyzer, which costs nothing), every code of every composite. With dedupe, a paid model
 * is not asked again about an item already found missing — unless the composite shows a worker not
 * judged yet: the sampler's person detections, followed across frames, tell who appears; a frame
 * the sampler did not look at for persons (uniform sampling) may show anyone, so it counts as a new
 * worker. A composite left with nothing to ask is skipped; both are recorded in the result.
 */
export class AskPlan {
  private readonly roster = new WorkerTracker();
  private readonly judged = new Set<number>();

  constructor(private readonly dedupe: boolean) {}

  /** The codes to ask about in this composite (composites in order); records what is left out. */
  codesFor(findings: Findings, composite: { index: number; cells: readonly CompositeCell[] }): string[] {
    const all = findings.codesToAsk(false);
    if (!this.dedupe) return all;
    const workers = this.workersIn(composite.cells);
    const fresh = workers === null || workers.some((w) => !this.judged.has(w));
    for (const w of workers ?? []) this.judged.add(w);
    const codes = fresh ? all : findings.codesToAsk(true);
    findings.skipped(composite.index, all.filter((c) => !codes.includes(c)));
    return codes;
  }

  /** The workers of a composite's frames, as the sampler detected them (null: a frame it did not look at). */
  private workersIn(cells: readonly CompositeCell[]): number[] | null {
    let unknown = false;
    const ids: number[] = [];
    for (const cell of [...cells].sort((a, b) => a.frameIndex - b.frameIndex)) {
      if (!cell.persons) {
        unknown = true;
        continue;
      }
      const boxes = cell.persons.map((p) => toVideoBox({ x: p.box[0] / cell.width, y: p.box[1] / cell.height, w: p.box[2] / cell.width, h: p.box[3] / cell.height }, cell.region));
      ids.push(...this.roster.assign(cell.frameIndex, boxes));
    }
    return unknown ? null : ids;
  }
}

/**
 * A track's verdict on one group ({@link TRACK_RULES}; `minWithout`: the sure frames without it a
 * violation needs here), and for a missing item its evidence, the clearest frame without it (the
 * analyzer's surest, the worker largest); null when no frame of the track was asked about the group.
 */
function trackVerdict(track: readonly TrackSighting[], group: readonly string[], minWithout: number): { item: WorkerReport['items'][string]; evidence?: TrackSighting } | null {
  const weight = (s: TrackSighting) => Math.max(0.05, ...group.map((c) => s.confidence?.[c] ?? (s.verdicts[c] && s.verdicts[c] !== 'unknown' ? 1 : 0)));
  const without = track.filter((s) => violates(s.verdicts, group));
  const worn = track.filter((s) => wears(s.verdicts, group));
  if (without.length === 0 && worn.length === 0) {
    return group.some((c) => track.some((s) => s.verdicts[c] !== undefined)) ? { item: { verdict: 'cannot_tell', frames_worn: 0, frames_without: 0, confidence: null } } : null;
  }
  const wWithout = without.reduce((sum, s) => sum + weight(s), 0);
  const wWorn = worn.reduce((sum, s) => sum + weight(s), 0);
  const share = wWithout / (wWithout + wWorn);
  const isSure = (s: TrackSighting) => weight(s) >= TRACK_RULES.sureWithout;
  const sure = without.filter(isSure).length;
  // Frames that showed why the item cannot be judged on this worker, as many as a violation needs, settle it: no violation.
  const undecidable = track.filter((s) => group.some((c) => s.undecidable?.[c] !== undefined)).length;
  const missing = undecidable < minWithout && ((sure >= minWithout && share >= TRACK_RULES.minShareWithout) || longestRun(track, group, isSure) >= TRACK_RULES.minRunWithout);
  const verdict: ItemVerdict = missing ? 'missing' : wWorn >= wWithout ? 'worn' : 'cannot_tell';
  const item = { verdict, frames_worn: worn.length, frames_without: without.length, confidence: Math.round((verdict === 'worn' ? 1 - share : share) * 100) / 100 };
  if (verdict !== 'missing') return { item };
  const clarity = (s: TrackSighting) => weight(s) * Math.sqrt(s.box.w * s.box.h);
  return { item, evidence: without.reduce((a, b) => (clarity(b) > clarity(a) ? b : a)) };
}

/** The most sightings of a track in a row (in time order) without the group and sure of it; a sighting with the group worn breaks a run, one not judged does not. */
function longestRun(track: readonly TrackSighting[], group: readonly string[], sure: (s: TrackSighting) => boolean): number {
  let run = 0;
  let best = 0;
  for (const s of track) {
    if (violates(s.verdicts, group)) {
      run = sure(s) ? run + 1 : run;
      best = Math.max(best, run);
    } else if (wears(s.verdicts, group)) run = 0;
  }
  return best;
}

function toEvidence(compositeIndex: number, s: EquipmentSighting): Evidence {
  return {
    code: s.code,
    composite_index: compositeIndex,
    frame_index: s.frameIndex ?? null,
    frame_time_sec: s.timeSec ?? null,
    confidence: s.confidence ?? null,
  };
}
