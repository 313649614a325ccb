import { withSpan, type Span } from '@baret/platform';
import type { TokenUsage, VisionAnalyzer } from './types.js';

const recordUsage = (span: Span, model: string, usage: TokenUsage) =>
  span.setAttributes({ 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': usage.promptTokens, 'gen_ai.usage.output_tokens': usage.completionTokens });

/**
 * The vision model with a span around each call (docs/adr/0014): the job classification and every
 * composite's analysis show in the job's trace with the model, the composite and the tokens spent.
 */
export function traceAnalyzer(analyzer: VisionAnalyzer): VisionAnalyzer {
  const model = analyzer.modelName;
  return {
    get modelName() {
      return analyzer.modelName;
    },
    get thirdParty() {
      return analyzer.thirdParty;
    },
    classifyJob: (composites, tasks, signal) =>
      withSpan('model classify_job', { attributes: { 'gen_ai.operation.name': 'classify_job', 'baret.composites': composites.length } }, async (span) => {
        const classification = await analyzer.classifyJob(composites, tasks, signal);
        recordUsage(span, model, classification.usage);
        span.setAttribute('baret.job_type', classification.slug);
        return classification;
      }),
    analyzeComposite: (composite, ask, signal) =>
      withSpan(
        `model analyze_composite ${composite.index}`,
        { attributes: { 'gen_ai.operation.name': 'analyze_composite', 'baret.composite.index': composite.index, 'baret.composite.frames': composite.cells.length, 'baret.equipment.asked': ask.equipment.length } },
        async (span) => {
          const analysis = await analyzer.analyzeComposite(composite, ask, signal);
          recordUsage(span, model, analysis.usage);
          span.setAttributes({ 'baret.equipment.seen': analysis.seen.length, 'baret.equipment.missing': analysis.missing.length });
          return analysis;
        },
      ),
  };
}
