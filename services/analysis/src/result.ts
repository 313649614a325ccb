import type { Lang } from '@baret/platform';
import { equipmentTitle, groupName, taskName } from './catalog/index.js';
import type { CompositeAnalysis, EquipmentSighting, TokenUsage } from './engine/types.js';

export interface Evidence {
  code: string;
  composite_index: number;
  frame_index: number | null;
  frame_time_sec: number | null;
  confidence: number | null;
}

/**
 * What the analysis has learned so far, composite after composite: which equipment was seen
 * (first sighting kept as evidence), which the analyzer cannot check.
 */
export class Findings {
  readonly evidence = new Map<string, Evidence>();
  readonly notCheckable = new Set<string>();
  readonly seenMissing = new Set<string>();
  analyzed = 0;

  constructor(readonly requiredGroups: readonly string[][]) {}

  add(compositeIndex: number, analysis: CompositeAnalysis): void {
    this.analyzed += 1;
    for (const s of analysis.seen) if (!this.evidence.has(s.code)) this.evidence.set(s.code, toEvidence(compositeIndex, s));
    for (const code of analysis.notChecked) this.notCheckable.add(code);
    for (const code of analysis.missing) this.seenMissing.add(code);
  }

  isSatisfied = (group: readonly string[]): boolean => group.some((c) => this.evidence.has(c));
  /** A group the analyzer cannot judge at all: every code of it is beyond what it checks. */
  isUncheckable = (group: readonly string[]): boolean => group.every((c) => this.notCheckable.has(c));

  /** Codes still worth asking about: with dedupe, only groups not yet satisfied. */
  codesToAsk(dedupe: boolean): string[] {
    const groups = dedupe ? this.requiredGroups.filter((g) => !this.isSatisfied(g)) : this.requiredGroups;
    return [...new Set(groups.flat())];
  }

  /** Nothing left to learn: every group satisfied, or one this analyzer cannot check. */
  get complete(): boolean {
    return this.analyzed > 0 && this.requiredGroups.every((g) => this.isSatisfied(g) || this.isUncheckable(g));
  }

  result(args: { jobType: string; modelUsed: string; usage: TokenUsage; estimatedCost: number; currency: string }) {
    const satisfiedGroups = this.requiredGroups.filter(this.isSatisfied);
    const missingGroups = this.requiredGroups.filter((g) => !this.isSatisfied(g) && !this.isUncheckable(g));
    const notChecked = this.requiredGroups.filter((g) => !this.isSatisfied(g) && this.isUncheckable(g));
    // One item per satisfied group: the first of its codes that was seen. An analyzer that only
    // knows "a hard hat" reports every hard-hat code; the report names the group's first.
    const satisfied = [...new Set(satisfiedGroups.map((g) => g.find((c) => this.evidence.has(c))!))];
    const names = (lang: Lang) => ({
      job_display_name: taskName(args.jobType, lang),
      required_groups_name: this.requiredGroups.map((g) => groupName(g, lang)),
      missing_groups_name: missingGroups.map((g) => groupName(g, lang)),
      satisfied_equipment_name: satisfied.map((c) => equipmentTitle(c, lang)),
      not_checked_name: notChecked.map((g) => groupName(g, lang)),
      evidence_names: Object.fromEntries(satisfied.map((c) => [c, equipmentTitle(c, lang)])),
    });
    return {
      job_type: args.jobType,
      required_groups: this.requiredGroups.map((g) => [...g]),
      missing_groups: missingGroups.map((g) => [...g]),
      satisfied_groups: satisfiedGroups.map((g) => [...g]),
      satisfied_equipment: satisfied,
      not_checked: notChecked.map((g) => [...g]),
      composites_processed: this.analyzed,
      model_used: args.modelUsed,
      token_usage: {
        prompt_tokens: args.usage.promptTokens,
        completion_tokens: args.usage.completionTokens,
        total_tokens: args.usage.promptTokens + args.usage.completionTokens,
        estimated_cost: args.estimatedCost,
        currency: args.currency,
      },
      evidence: satisfied.map((c) => this.evidence.get(c)!),
      names: { tr: names('tr'), en: names('en') },
    };
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
