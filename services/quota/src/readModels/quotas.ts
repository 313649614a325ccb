import { foldStreamInto, type DocumentStore, type Projection, type StreamReader, type QuotaView, type RecordedEvent } from '@baret/platform';
import { evolveQuota, exceededLimit, initialQuotaState, usageAt, type QuotaEvent, type QuotaState } from '../quota/quota.js';

export interface QuotaDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  state: QuotaState;
}

export const QUOTAS = 'quota_quotas';

/** The folded aggregate per user; usage windows are computed when read, with the clock of the read. */
export const quotasProjection: Projection = {
  name: 'quota-quotas',
  categories: ['quota'],
  async apply(event: RecordedEvent, documents: DocumentStore, events: StreamReader) {
    const userId = event.streamId.slice('quota-'.length);
    await foldStreamInto<QuotaDoc>({
      collection: documents.collection<QuotaDoc>(QUOTAS),
      id: userId,
      event,
      events,
      evolve: (doc, e) => ({ id: userId, revision: e.revision, state: evolveQuota(doc?.state ?? initialQuotaState(), { type: e.type, data: e.data } as QuotaEvent) }),
    });
  },
};

export function toView(state: QuotaState, now: Date): QuotaView {
  return {
    plan_name: state.plan_name,
    daily_limit: state.daily_limit,
    monthly_limit: state.monthly_limit,
    lifetime_limit: state.lifetime_limit,
    ...usageAt(state, now),
    can_analyze: !state.closed && exceededLimit(state, now) === null,
  };
}

export function quotaQueries(documents: DocumentStore) {
  const quotas = documents.collection<QuotaDoc>(QUOTAS);
  return {
    /** A user without a quota document yet is on the free plan, unused. */
    stateOf: async (userId: string): Promise<QuotaState> => (await quotas.get(userId))?.state ?? initialQuotaState(),
  };
}
