/**
 * Opens the confirmation link mailed at registration, for tests and benches whose server runs in
 * another process: an address of BARET_ADMIN_EMAILS becomes admin only once it is confirmed
 * (issue 37), and the admin outbox no longer shows live links. The token is read from the user's
 * events, where identity keeps it (decrypted with the user's key, docs/adr/0025).
 */
import { join } from 'node:path';
import { openSqlite, PostgresEventStore, ShreddingEventStore, SqliteEventStore, SqliteSubjectKeyStore, type EventStore } from '@baret/platform';

/** The newest confirmation token mailed to the user. */
export async function mailedConfirmationToken(events: EventStore, userId: string): Promise<string> {
  const token = ((await events.readStream(`user-${userId}`)).filter((e) => e.type === 'email_verification_requested').at(-1)?.data as { token?: unknown } | undefined)?.token;
  if (typeof token !== 'string') throw new Error(`no confirmation mailed to ${userId}`);
  return token;
}

/** Where the server's events are: its data folder (embedded) or the distributed stack's environment. */
export type EventSource = { dataDir: string } | { env: Record<string, string | undefined> };

async function tokenFrom(source: EventSource, userId: string): Promise<string> {
  const db = 'dataDir' in source ? openSqlite(join(source.dataDir, 'baret.db')) : null;
  const pg = 'env' in source ? await PostgresEventStore.connect(source.env.POSTGRES_URL!, { schema: 'baret_identity' }) : null;
  const events = db ? new ShreddingEventStore(new SqliteEventStore(db), new SqliteSubjectKeyStore(db)) : new ShreddingEventStore(pg!, pg!.subjectKeys());
  try {
    return await mailedConfirmationToken(events, userId);
  } finally {
    await events.close();
    db?.close();
  }
}

/** Confirms the user's address at `baseUrl` (POST /auth/verify-email with the mailed token). */
export async function confirmEmail(baseUrl: string, source: EventSource, userId: string): Promise<void> {
  const token = await tokenFrom(source, userId);
  const res = await fetch(`${baseUrl}/auth/verify-email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  if (res.status !== 204) throw new Error(`verify-email: ${res.status} ${await res.text()}`);
}

/** Confirms the address of the account `email` / `password` (logs in to learn its id). */
export async function confirmAccount(baseUrl: string, source: EventSource, email: string, password: string): Promise<void> {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' } };
  const login = (await (await fetch(`${baseUrl}/auth/login`, { ...post, body: JSON.stringify({ email, password }) })).json()) as { access_token: string };
  const me = (await (await fetch(`${baseUrl}/auth/me`, { headers: { authorization: `Bearer ${login.access_token}` } })).json()) as { id: string };
  await confirmEmail(baseUrl, source, me.id);
}
