import { baretVersion, runService } from '@baret/platform';
import { createQuotaService } from './service.js';

/** The quota service as its own process (distributed run, docs/adr/0011). */
await runService(
  'quota',
  async ({ log, infra, clients }) => {
    const quota = createQuotaService({ eventStore: infra.eventStore, documents: infra.documents, bus: infra.bus, directory: clients.directory(), log });
    return { modules: [quota.module], projections: quota.projections };
  },
  baretVersion(),
);
