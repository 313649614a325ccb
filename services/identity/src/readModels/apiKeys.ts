import { foldStreamInto, type DocumentStore, type Projection, type RecordedEvent, type StreamReader } from '@baret/platform';
import type { ApiKeyEvent } from '../apiKey/apiKey.js';

export interface ApiKeyDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  user_id: string;
  name: string;
  token_prefix: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
}

export const API_KEYS = 'identity_api_keys';

/** Live keys only: a deleted key's document is removed, so it stops working at once. */
export const apiKeysProjection: Projection = {
  name: 'identity-api-keys',
  categories: ['apikey'],
  async apply(event: RecordedEvent, documents: DocumentStore, events: StreamReader) {
    await foldStreamInto<ApiKeyDoc>({ collection: documents.collection<ApiKeyDoc>(API_KEYS), id: event.streamId.slice('apikey-'.length), event, events, evolve: evolveKeyDoc });
  },
};

function evolveKeyDoc(doc: ApiKeyDoc | null, event: RecordedEvent): ApiKeyDoc | null {
  const e = { type: event.type, data: event.data } as ApiKeyEvent;
  switch (e.type) {
    case 'api_key_created':
      return {
        id: e.data.key_id,
        revision: event.revision,
        user_id: e.data.user_id,
        name: e.data.name,
        token_prefix: e.data.token_prefix,
        token_hash: e.data.token_hash,
        created_at: e.data.created_at,
        last_used_at: doc?.last_used_at ?? null,
      };
    case 'api_key_deleted':
      return null;
    default: {
      const never: never = e;
      return never;
    }
  }
}

export function apiKeyQueries(documents: DocumentStore) {
  const keys = documents.collection<ApiKeyDoc>(API_KEYS);
  return {
    byId: (id: string) => keys.get(id),
    byHash: async (hash: string): Promise<ApiKeyDoc | null> => (await keys.find({ where: { token_hash: hash }, limit: 1 }))[0] ?? null,
    ofUser: (userId: string) => keys.find({ where: { user_id: userId }, orderBy: [{ field: 'created_at', direction: 'desc' }] }),
    touch: async (doc: ApiKeyDoc, now: Date): Promise<void> => {
      await keys.put(doc.id, { ...doc, last_used_at: now.toISOString() });
    },
  };
}
