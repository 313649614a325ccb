/** The ApiKey aggregate: events, state and evolve. */

export type ApiKeyCreated = {
  type: 'api_key_created';
  data: { key_id: string; user_id: string; name: string; token_prefix: string; token_hash: string; created_at: string };
};
export type ApiKeyDeleted = { type: 'api_key_deleted'; data: { key_id: string; user_id: string; at: string } };
export type ApiKeyEvent = ApiKeyCreated | ApiKeyDeleted;

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'deleted'; key_id: string; user_id: string; name: string; token_prefix: string; token_hash: string; created_at: string };

export const initialApiKeyState = (): ApiKeyState => ({ status: 'none' });

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'api_key_created':
      return { status: 'active', ...event.data };
    case 'api_key_deleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const apiKeyStream = (keyId: string): string => `apikey-${keyId}`;
