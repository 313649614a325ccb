import type { Lang } from '@baret/platform';
import { equipmentTitle, groupName, taskName } from './catalog/index.js';
import type { CompositeAnalysis, CompositeCell, EquipmentSighting, NotWornReason, RelBox, TokenUsage, WearVerdict } from './engine/types.js';
import { toVideoBox, WorkerTracker } from './tracking.js';

export interface Evidence {
  code: string;
  composite_index: number;
  frame_index: number | null;
  frame_time_sec: number | null;
  confidence: number | null;
}

/**
 * A worker seen without a required group's equipment: one run of sampled frames in which the same
 * worker (followed from frame to frame, see tracking.ts) went without it. The evidence is the run's
 * first frame.
 */
export interface Violation {
  group: string[];
  /** 1-based number of the worker over the whole video, in order of first appearance. */
  worker: number;
  /** Time of the run's first frame (the evidence). */
  time_sec: number;
  /** Time of the run's last frame that showed the worker without it (equals `time_sec` for one frame). */
  end_sec: number;
  /** Sampled frames of the run that showed the worker without it. */
  frames: number;
  frame_index: number;
  composite_index: number;
  /** The worker's box in the evidence frame, 0..1 of that frame. */
  box: RelBox;
  /** What the worker had instead in the evidence frame (a cap or hat, a bare head), when the analyzer can tell. */
  reason: NotWornReason | null;
}

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

/**
 * What the analysis has learned so far, composite after composite: which equipment was seen
 * (first sighting kept as evidence), which worker went without a required group and when
 * (violations), which codes the analyzer cannot check.
 *
 * The rule (docs/adr/0003-analysis.md): a group with a violation is missing, never satisfied; a
 * group is satisfied when its equipment was seen and no sampled worker went without it. Dedupe
 * stops asking about groups already settled as violated (or that the analyzer cannot check) but
 * keeps asking about satisfied groups, since a later worker can still go without them; early stop
 * comes only when every group is violated or uncheckable.
 *
 * Workers are followed across frames ({@link WorkerTracker}): the sightings of one worker without
 * a group in frames after one another make one violation, from its first to its last frame. A
 * sighting with the group worn ends the run; one where it was not judged (cannot tell, or not
 * asked) does not.
 *
 * No worker, no verdict: a group is missing only when a worker was seen without it (or the model
 * said so of what it saw); a group that no worker could be judged for — no worker in the video, or
 * none judged for it — is *not judged* (listed with `not_checked`, and in `not_judged`), never missing.
 */
export class Findings {
  readonly evidence = new Map<string, Evidence>();
  readonly notCheckable = new Set<string>();
  readonly seenMissing = new Set<string>();
  readonly violations: Violation[] = [];
  private readonly violatedGroups = new Set<string>();
  /** Groups a worker was judged for (worn or not), or that the model said were missing. */
  private readonly judgedGroups = new Set<string>();
  /** The most persons one composite reported (null: the analyzer never said). */
  private mostPersons: number | null = null;
  private readonly tracker = new WorkerTracker();
  /** The violation a worker's current run extends, by `worker|group`. */
  private readonly openRuns = new Map<string, Violation>();
  analyzed = 0;

  constructor(readonly requiredGroups: readonly string[][]) {}

  /**
   * Adds one composite's analysis (composites in order). `cells` tell which part of the video
   * frame each cell shows, so workers are followed in the coordinates of the whole frame. Returns
   * the groups a worker went without in this composite.
   */
  add(compositeIndex: number, analysis: CompositeAnalysis, cells: readonly CompositeCell[] = []): string[][] {
    this.analyzed += 1;
    for (const s of analysis.seen) if (!this.evidence.has(s.code)) this.evidence.set(s.code, toEvidence(compositeIndex, s));
    for (const code of analysis.notChecked) this.notCheckable.add(code);
    for (const code of analysis.missing) this.seenMissing.add(code);
    if (analysis.persons !== undefined || analysis.workers !== undefined) this.mostPersons = Math.max(this.mostPersons ?? 0, analysis.persons ?? 0);
    for (const group of this.requiredGroups) {
      const judged = group.some((c) => analysis.missing.includes(c)) || (analysis.workers ?? []).some((w) => group.some((c) => w.verdicts[c] === 'worn' || w.verdicts[c] === 'not_worn'));
      if (judged) this.judgedGroups.add(groupKey(group));
    }
    const violatedHere = new Map<string, string[]>();
    const sightings = analysis.workers ?? [];
    const frames = [...new Set(sightings.map((w) => w.frameIndex))].sort((a, b) => a - b);
    for (const frameIndex of frames) {
      const inFrame = sightings.filter((w) => w.frameIndex === frameIndex);
      const region = cells.find((c) => c.frameIndex === frameIndex)?.region;
      const ids = this.tracker.assign(frameIndex, inFrame.map((w) => toVideoBox(w.box, region)));
      for (const [i, w] of inFrame.entries()) {
        const worker = ids[i]!;
        for (const group of this.requiredGroups) {
          const key = groupKey(group);
          const run = `${worker}|${key}`;
          if (!violates(w.verdicts, group)) {
            if (wears(w.verdicts, group)) this.openRuns.delete(run);
            continue;
          }
          this.violatedGroups.add(key);
          violatedHere.set(key, [...group]);
          const open = this.openRuns.get(run);
          if (open) {
            open.end_sec = Math.max(open.end_sec, w.timeSec);
            open.frames += 1;
            continue;
          }
          if (this.violations.filter((v) => groupKey(v.group) === key).length >= MAX_VIOLATIONS_PER_GROUP) continue;
          const v: Violation = {
            group: [...group],
            worker,
            time_sec: w.timeSec,
            end_sec: w.timeSec,
            frames: 1,
            frame_index: w.frameIndex,
            composite_index: compositeIndex,
            box: w.box,
            reason: reasonFor(w.reasons, group),
          };
          this.violations.push(v);
          this.openRuns.set(run, v);
        }
      }
    }
    return [...violatedHere.values()];
  }

  isViolated = (group: readonly string[]): boolean => this.violatedGroups.has(groupKey(group));
  /** A worker was judged for the group (or the model said it was missing). */
  isJudged = (group: readonly string[]): boolean => this.judgedGroups.has(groupKey(group));

  /** Workers seen: those followed across frames, or the most one composite reported (null: the analyzer never said). */
  get workersSeen(): number | null {
    return this.mostPersons === null && this.tracker.count === 0 ? null : Math.max(this.tracker.count, this.mostPersons ?? 0);
  }
  isSatisfied = (group: readonly string[]): boolean => !this.isViolated(group) && group.some((c) => this.evidence.has(c));
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

function toEvidence(compositeIndex: number, s: EquipmentSighting): Evidence {
  return {
    code: s.code,
    composite_index: compositeIndex,
    frame_index: s.frameIndex ?? null,
    frame_time_sec: s.timeSec ?? null,
    confidence: s.confidence ?? null,
  };
}
