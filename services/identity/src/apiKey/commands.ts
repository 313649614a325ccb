/** API keys: a user creates and deletes their own; a reset or a company sign-in may revoke them all. */
import { randomBytes, randomUUID } from 'node:crypto';
import { API_KEY_PREFIX, NotFoundError } from '@baret/platform';
import type { IdentityDeps } from '../deps.js';
import type { ApiKeyDoc } from '../readModels/apiKeys.js';
import { sha256 } from '../user/tokens.js';
import { apiKeyStream } from './apiKey.js';
import { apiKeyDecider } from './businessLogic.js';

export const publicKey = (k: ApiKeyDoc) => ({
  id: k.id,
  name: k.name,
  token_prefix: k.token_prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

export async function createApiKey(deps: IdentityDeps, userId: string, name: string) {
  const { eventStore, run, keys, clock } = deps;
  const keyId = randomUUID();
  const prefix = randomBytes(4).toString('hex');
  const token = `${API_KEY_PREFIX}${prefix}_${randomBytes(24).toString('base64url')}`;
  await run(eventStore, apiKeyStream(keyId), apiKeyDecider, {
    type: 'create_api_key',
    data: { key_id: keyId, user_id: userId, name, token_prefix: `${API_KEY_PREFIX}${prefix}`, token_hash: sha256(token), now: clock() },
  });
  const doc = await keys.byId(keyId);
  if (!doc) throw new Error('created key missing from the read model');
  return { ...publicKey(doc), token };
}

export async function deleteApiKey(deps: IdentityDeps, userId: string | null, keyId: string): Promise<void> {
  await deps.run(deps.eventStore, apiKeyStream(keyId), apiKeyDecider, { type: 'delete_api_key', data: { by_user: userId, now: deps.clock() } });
}

/** Revokes every API key of a user (a key deleted a moment ago by its owner is not an error); how many ended. */
export async function revokeApiKeys(deps: IdentityDeps, userId: string): Promise<number> {
  let revoked = 0;
  for (const key of await deps.keys.ofUser(userId)) {
    try {
      await deleteApiKey(deps, userId, key.id);
      revoked++;
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
    }
  }
  return revoked;
}
