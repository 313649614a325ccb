import { IllegalStateError, NotFoundError, ValidationError, type Decider } from '@baret/platform';
import { evolveApiKey, initialApiKeyState, type ApiKeyEvent, type ApiKeyState } from './apiKey.js';

export const API_KEY_NAME_MAX = 100;

export type CreateApiKey = {
  type: 'create_api_key';
  data: { key_id: string; user_id: string; name: string; token_prefix: string; token_hash: string; now: Date };
};
/** `by_user`: the owner asking, or null when the system deletes it (the owner was deleted). */
export type DeleteApiKey = { type: 'delete_api_key'; data: { by_user: string | null; now: Date } };
export type ApiKeyCommand = CreateApiKey | DeleteApiKey;

/** Names are trimmed and must keep 1 to 100 characters. */
export function normaliseKeyName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new ValidationError('Please give the API key a name.');
  if (trimmed.length > API_KEY_NAME_MAX) throw new ValidationError(`The API key name must be at most ${API_KEY_NAME_MAX} characters long.`);
  return trimmed;
}

export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case 'create_api_key': {
      if (state.status !== 'none') throw new IllegalStateError('This API key already exists.');
      const { now, ...data } = command.data;
      return [{ type: 'api_key_created', data: { ...data, name: normaliseKeyName(data.name), created_at: now.toISOString() } }];
    }
    case 'delete_api_key':
      // Another user's key answers exactly like a missing one: nothing about it leaks.
      if (state.status !== 'active' || (command.data.by_user !== null && command.data.by_user !== state.user_id)) {
        throw new NotFoundError('This API key does not exist.');
      }
      return [{ type: 'api_key_deleted', data: { key_id: state.key_id, user_id: state.user_id, at: command.data.now.toISOString() } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: initialApiKeyState,
  evolve: evolveApiKey,
  decide: decideApiKey,
};
