/**
 * The audit log (issue 30, docs/adr/0023), kept by the identity service: every service appends
 * `audit_recorded` events to its own store (services/platform/src/audit.ts); they reach this
 * service on `audit-events` and are inserted here once each, never updated nor deleted. Managers
 * read their organisation's entries, admins every entry; filters, a cursor, and CSV
 * (queries.ts, csv.ts; the routes in api.ts).
 */
import {
  AUDIT_EVENT,
  AUDIT_TOPIC,
  decodeEnvelope,
  runConsumer,
  type AuditRecordedData,
  type AuditRecorder,
  type AuditSource,
  type BackgroundTask,
  type Collection,
  type DocumentStore,
  type MessageBus,
} from '@baret/platform';
import type { Logger } from 'pino';
import type { UserQueries } from '../readModels/users.js';
import { withDeps } from '../useCase.js';
import { AUDIT, type AuditDoc, type AuditEntries } from './auditDoc.js';
import { csv } from './csv.js';
import { about, list } from './queries.js';

export { AUDIT, type AuditDoc } from './auditDoc.js';

export interface AuditLogOptions {
  documents: DocumentStore;
  users: UserQueries;
  recorder: AuditRecorder;
  bus?: MessageBus;
  log: Logger;
}

/** Keeps one recorded entry: inserted once; a redelivered one changes nothing (no update path exists). */
async function keep(entries: Collection<AuditDoc>, data: AuditRecordedData): Promise<boolean> {
  const doc: AuditDoc = {
    id: data.entry_id,
    revision: 0,
    sort_key: `${data.at}|${data.entry_id}`,
    at: data.at,
    action: data.action,
    actor_id: data.actor_id ?? null,
    org_id: data.org_id ?? null,
    object_type: data.object_type,
    object_id: data.object_id ?? null,
    outcome: data.outcome === 'failure' ? 'failure' : 'success',
    ip: data.ip ?? null,
    user_agent: data.user_agent ?? null,
    details: data.details ?? {},
    source: data.source,
  };
  return entries.putIfNewer(doc.id, doc);
}

/** Every service's entries, arriving on the bus, kept here. */
function keepingTasks(bus: MessageBus | undefined, entries: Collection<AuditDoc>): BackgroundTask[] {
  return bus
    ? [
        {
          name: 'consumer:identity-audit',
          run: (signal) =>
            runConsumer(
              bus,
              'identity-audit',
              [AUDIT_TOPIC],
              async (message) => {
                const event = decodeEnvelope(message.value);
                if (event.type === AUDIT_EVENT) await keep(entries, event.data as unknown as AuditRecordedData);
              },
              signal,
              { maxAttempts: 10, retryDelayMs: 500 },
            ),
        },
      ]
    : [];
}

/**
 * A sign-in, successful or not, for every way of signing in (password here; single sign-on calls
 * it too). `userId` is the account tried (null when the address has none); no address is stored.
 */
async function recordSignIn(
  recorder: AuditRecorder,
  input: AuditSource & { userId: string | null; orgId?: string | null; outcome: 'success' | 'failure'; method: 'password' | 'oidc' | string; reason?: string; key?: string },
) {
  await recorder.record({
    action: input.outcome === 'success' ? 'auth.signed_in' : 'auth.sign_in_failed',
    actorId: input.userId,
    orgId: input.orgId ?? null,
    objectType: 'user',
    objectId: input.userId,
    outcome: input.outcome,
    ip: input.ip,
    userAgent: input.userAgent,
    details: { method: input.method, ...(input.reason ? { reason: input.reason } : {}) },
    ...(input.key ? { key: input.key } : {}),
  });
}

export function createAuditLog(opts: AuditLogOptions) {
  const entries = opts.documents.collection<AuditDoc>(AUDIT);
  const log: AuditEntries = { entries, users: opts.users };
  return {
    keep: (data: AuditRecordedData) => keep(entries, data),
    list: withDeps(log, list),
    csv: withDeps(log, csv),
    recordSignIn: withDeps(opts.recorder, recordSignIn),
    about: withDeps(log, about),
    tasks: keepingTasks(opts.bus, entries),
    record: opts.recorder.record,
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
