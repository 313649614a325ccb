import { baretVersion, runService } from '@baret/platform';
import { createIdentityService, ssoOptionsFromConfig } from './service.js';

/** The identity service as its own process (distributed run, docs/adr/0011). */
await runService(
  'identity',
  async ({ config, log, infra, clients }) => {
    const identity = createIdentityService({
      eventStore: infra.eventStore,
      documents: infra.documents,
      bus: infra.bus,
      quota: clients.quota(),
      adminEmails: config.BARET_ADMIN_EMAILS,
      log,
      deviceSecret: config.JWT_SECRET,
      sso: ssoOptionsFromConfig(config),
    });
    return { modules: [identity.module], projections: identity.projections, start: () => identity.promoteConfiguredAdmins() };
  },
  baretVersion(),
);
