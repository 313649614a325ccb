import { baretVersion, runService } from '@baret/platform';
import { createAnalysisService } from './service.js';

/** An analysis worker as its own process (distributed run): any number share the jobs through the consumer group. */
await runService(
  'analysis',
  async ({ config, log, infra, scratchDir }) => {
    const analysis = createAnalysisService({ config, documents: infra.documents, objects: infra.objects, bus: infra.bus, log, scratchDir });
    return { modules: [analysis.module] };
  },
  baretVersion(),
);
