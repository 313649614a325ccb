import { quotaInternalRoutes } from './internal.js';
import { randomUUID } from 'node:crypto';
import {
  createAuditRecorder,
  decodeEnvelope,
  handleCommand,
  KeyedMutex,
  projectInline,
  runConsumer,
  type AuditSource,
  type DocumentStore,
  type EventStore,
  type MessageBus,
  type QuotaClient,
  type ServiceModule,
  type UserDirectory,
} from '@baret/platform';
import type { Logger } from 'pino';
import { quotaRoutes } from './api.js';
import { QuotaExceededError, quotaDecider } from './quota/businessLogic.js';
import { quotaStream, type Limits } from './quota/quota.js';
import { quotaQueries, quotasProjection, toView } from './readModels/quotas.js';

export interface QuotaOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  bus: MessageBus;
  directory: UserDirectory;
  log: Logger;
  clock?: () => Date;
}

/** The quota service: plans, limits, usage, reservations per job, upgrade requests. */
export function createQuotaService(opts: QuotaOptions) {
  const { eventStore, documents, bus, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const queries = quotaQueries(documents);
  const projections = [quotasProjection];

  // A command and its projection run as one, per account: concurrent reservations (20 analyses of
  // an organisation's members at once) reach the read model in the order they were stored (and the fold reads any gap from the store).
  const locks = new KeyedMutex();
  const run = (userId: string, command: Parameters<typeof quotaDecider.decide>[0]) =>
    locks.run(userId, async () => {
      const result = await handleCommand(eventStore, quotaStream(userId), quotaDecider, command);
      await projectInline(projections, result.recorded, documents, eventStore);
      return result;
    });

  const client: QuotaClient = {
    getQuota: async (userId) => toView(await queries.stateOf(userId), clock()),
    reserve: async (userId, jobId) => {
      try {
        await run(userId, { type: 'reserve_unit', data: { user_id: userId, job_id: jobId, now: clock() } });
        return { ok: true };
      } catch (e) {
        if (e instanceof QuotaExceededError) return { ok: false, reason: e.limit };
        throw e;
      }
    },
    release: async (userId, jobId, reason) => {
      await run(userId, { type: 'release_unit', data: { user_id: userId, job_id: jobId, reason, now: clock() } });
    },
  };

  // Audit entries of quota and plan changes (issue 30, docs/adr/0023); the identity service keeps the log.
  const audit = createAuditRecorder({ eventStore, source: 'quota', clock, log });

  /** An admin changes an account's plan or limits; one audit entry per change that changed something, keyed by its event. */
  async function changeLimits(account: string, changes: Partial<Limits>, by: string, from: AuditSource = {}) {
    const result = await run(account, { type: 'change_limits', data: { user_id: account, changes, by, now: clock() } });
    const changed = result.recorded.find((e) => e.type === 'quota_limits_changed');
    if (changed) {
      const effective = (changed.data as { changes: Record<string, unknown> }).changes;
      const org = account.startsWith('org_') ? account.slice('org_'.length) : null;
      await audit.record({
        action: 'quota.changed',
        actorId: by,
        orgId: org,
        objectType: org ? 'org' : 'user',
        objectId: org ?? account,
        ip: from.ip,
        userAgent: from.userAgent,
        details: Object.fromEntries(Object.entries(effective).map(([k, v]) => [k, v === null ? 'unlimited' : String(v)])),
        key: changed.id,
      });
    }
    return client.getQuota(account);
  }

  async function requestUpgrade(input: { user_id: string; email: string; origin: 'pricing' | 'profile'; message: string | null }) {
    const requestId = randomUUID();
    await eventStore.appendToStream(
      `upgrade-${requestId}`,
      [{ type: 'upgrade_requested', data: { request_id: requestId, ...input, requested_at: clock().toISOString() } }],
      { expectedRevision: 'no_stream' },
    );
    log.info({ request_id: requestId, user_id: input.user_id, origin: input.origin }, 'upgrade requested');
    return requestId;
  }

  const module: ServiceModule = {
    name: 'quota',
    tags: [{ name: 'usage', description: 'Plans, quotas and upgrade requests' }],
    routes: quotaRoutes({ client, changeLimits, requestUpgrade, directory: opts.directory, clock }),
    internal: quotaInternalRoutes(client),
    tasks: [
      {
        name: 'quota:user-deleted',
        // A deleted user's quota is closed: nothing more can be reserved for them.
        run: (signal) =>
          runConsumer(bus, 'quota', ['user-events'], async (message) => {
            const event = decodeEnvelope(message.value);
            if (event.type !== 'user_deleted') return;
            const userId = String(event.data.user_id);
            await run(userId, { type: 'close_quota', data: { user_id: userId, now: clock() } });
          }, signal),
      },
    ],
  };

  return { module, client, changeLimits, requestUpgrade, projections };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
