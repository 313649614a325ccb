import { foldStreamInto, type DocumentStore, type Projection, type RecordedEvent, type StreamReader } from '@baret/platform';
import { evolveUser, type UserEvent, type UserState } from '../user/user.js';
import { normaliseEmail } from '../user/emailClaim.js';

/** The users read model: one document per user, the folded aggregate plus query fields. */
export interface UserDoc extends Record<string, unknown> {
  id: string;
  revision: number;
  email: string;
  email_lower: string;
  full_name: string | null;
  is_admin: boolean;
  deleted: boolean;
  password_hash: string;
  created_at: string;
  last_login_at: string | null;
  /** Absent in documents projected before issue 29 (read as false / 0 / null). */
  email_verified?: boolean;
  session_version?: number;
  reset_token_hash?: string | null;
  reset_expires_at?: string | null;
  verify_token_hash?: string | null;
}

export const USERS = 'identity_users';

export const usersProjection: Projection = {
  name: 'identity-users',
  categories: ['user'],
  async apply(event: RecordedEvent, documents: DocumentStore, events: StreamReader) {
    const userId = event.streamId.slice('user-'.length);
    await foldStreamInto<UserDoc>({ collection: documents.collection<UserDoc>(USERS), id: userId, event, events, evolve: evolveUserDoc });
  },
};

function evolveUserDoc(doc: UserDoc | null, event: RecordedEvent): UserDoc | null {
  const state: UserState = doc
    ? {
        status: doc.deleted ? 'deleted' : 'active',
        id: doc.id,
        email: doc.email,
        full_name: doc.full_name,
        is_admin: doc.is_admin,
        password_hash: doc.password_hash,
        created_at: doc.created_at,
        last_login_at: doc.last_login_at,
        email_verified: doc.email_verified ?? false,
        session_version: doc.session_version ?? 0,
        reset_token_hash: doc.reset_token_hash ?? null,
        reset_expires_at: doc.reset_expires_at ?? null,
        verify_token_hash: doc.verify_token_hash ?? null,
      }
    : { status: 'none' };
  const next = evolveUser(state, { type: event.type, data: event.data } as UserEvent);
  if (next.status === 'none') return null;
  // A deleted user keeps a tombstone with nothing personal in it (issue 30: erasure).
  if (next.status === 'deleted') {
    return {
      id: next.id, revision: event.revision, email: '', email_lower: '', full_name: null, is_admin: false, deleted: true, password_hash: '',
      created_at: next.created_at, last_login_at: null, email_verified: false, session_version: next.session_version + 1,
      reset_token_hash: null, reset_expires_at: null, verify_token_hash: null,
    };
  }
  return {
    id: next.id,
    revision: event.revision,
    // Both read as null in a replay after the user's key was shredded (docs/adr/0025).
    email: next.email ?? '',
    email_lower: normaliseEmail(next.email ?? ''),
    full_name: next.full_name,
    is_admin: next.is_admin,
    deleted: false,
    password_hash: next.password_hash,
    created_at: next.created_at,
    last_login_at: next.last_login_at,
    email_verified: next.email_verified,
    session_version: next.session_version,
    reset_token_hash: next.reset_token_hash,
    reset_expires_at: next.reset_expires_at,
    verify_token_hash: next.verify_token_hash,
  };
}

export function userQueries(documents: DocumentStore) {
  const users = documents.collection<UserDoc>(USERS);
  return {
    byId: async (id: string): Promise<UserDoc | null> => {
      const doc = await users.get(id);
      return doc && !doc.deleted ? doc : null;
    },
    byEmail: async (email: string): Promise<UserDoc | null> =>
      (await users.find({ where: { email_lower: normaliseEmail(email), deleted: false }, limit: 1 }))[0] ?? null,
    all: (): Promise<UserDoc[]> => users.find({ where: { deleted: false }, orderBy: [{ field: 'created_at' }] }),
    byIds: async (ids: readonly string[]): Promise<UserDoc[]> =>
      ids.length === 0 ? [] : users.find({ where: { id: { $in: [...ids] }, deleted: false } }),
  };
}
export type UserQueries = ReturnType<typeof userQueries>;
