/**
 * The audit log's writing side (issue 30, docs/adr/0023): any service records "who did what to
 * which object, when, from where, with what outcome" by appending an `audit_recorded` event to a
 * stream of its own event store (`audit-{entry id}`). Its relay publishes it on `audit-events`;
 * the identity service keeps the log (one document per entry, inserted once, never updated).
 *
 * Exactly one entry per action: the entry id is derived from the action's idempotency key (the
 * domain event the action produced, or the client's `Idempotency-Key`), and the stream must not
 * exist yet, so a retried or concurrent second recording of the same action is dropped here, and a
 * redelivered message is dropped by the log's insert-only write.
 *
 * Personal data: an entry names its actor by user id only (never the e-mail); the e-mail shown
 * with it is read from the identity service's user directory, so erasing an account leaves its
 * entries pseudonymous without touching them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ConcurrencyError } from './errors.js';
import type { EventStore } from './ports/eventStore.js';

export const AUDIT_ACTIONS = [
  'job.viewed',
  'job.downloaded_json',
  'job.downloaded_pdf',
  'jobs.downloaded_csv',
  'job.cancelled',
  'job.deleted',
  'job.finding_reviewed',
  'reviews.exported',
  'member.role_changed',
  'quota.changed',
  'setting.changed',
  'auth.signed_in',
  'auth.sign_in_failed',
  'auth.password_reset',
  'auth.sso_linked',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_OBJECT_TYPES = ['job', 'org', 'user', 'setting', 'quota'] as const;
export type AuditObjectType = (typeof AUDIT_OBJECT_TYPES)[number];

export const AUDIT_EVENT = 'audit_recorded';
export const AUDIT_TOPIC = 'audit-events';
export const auditStream = (entryId: string): string => `audit-${entryId}`;

/** Where a request came from, for its entry. */
export interface AuditSource {
  ip?: string | null;
  userAgent?: string | null;
}

export interface AuditInput extends AuditSource {
  action: AuditAction;
  /** Who did it: a user id; null when nobody known (a failed sign-in with an unknown address, the system). */
  actorId: string | null;
  /** The organisation the entry is about (its managers read it), if any. */
  orgId?: string | null;
  objectType: AuditObjectType;
  objectId: string | null;
  outcome?: 'success' | 'failure';
  /** A few short facts (the new role, the changed setting, the format, why a sign-in failed); never personal data. */
  details?: Record<string, string>;
  /**
   * What makes two recordings the same action: the id of the domain event the action produced, or
   * the client's Idempotency-Key with its user. Without one, every call is a new entry.
   */
  key?: string;
}

/**
 * The entry of a setting that changed (admin or organisation scope): one shape for every setting.
 * `key`: what makes a second recording the same change (its event id or Idempotency-Key, with the name).
 */
export function settingChanged(input: {
  by: string;
  name: string;
  scope: 'admin' | 'org';
  value: string;
  previous?: string;
  orgId?: string | null;
  from?: AuditSource;
  key?: string;
}): AuditInput {
  return {
    action: 'setting.changed',
    actorId: input.by,
    ...(input.orgId ? { orgId: input.orgId } : {}),
    objectType: 'setting',
    objectId: input.name,
    ip: input.from?.ip,
    userAgent: input.from?.userAgent,
    details: { scope: input.scope, value: input.value, ...(input.previous !== undefined ? { previous: input.previous } : {}) },
    ...(input.key ? { key: `${input.key}\n${input.name}` } : {}),
  };
}

/** The payload of `audit_recorded` (proto/baret/v1/audit.proto). */
export interface AuditRecordedData {
  entry_id: string;
  action: AuditAction;
  actor_id?: string;
  org_id?: string;
  object_type: AuditObjectType;
  object_id?: string;
  outcome: 'success' | 'failure';
  ip?: string;
  user_agent?: string;
  details: Record<string, string>;
  at: string;
  source: string;
}

export interface AuditRecorder {
  /** Appends the entry (once per key); resolves with its id. */
  record(input: AuditInput): Promise<string>;
}

/** A stable entry id for an idempotency key (a UUID-shaped SHA-256 prefix). */
export function auditEntryId(action: AuditAction, key: string): string {
  const h = createHash('sha256').update(`${action}\n${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const clip = (s: string | null | undefined, max: number): string | undefined => (s ? s.slice(0, max) : undefined);

export function createAuditRecorder(opts: { eventStore: EventStore; source: string; clock?: () => Date; log?: Logger }): AuditRecorder {
  const clock = opts.clock ?? (() => new Date());
  return {
    async record(input) {
      const entryId = input.key ? auditEntryId(input.action, input.key) : randomUUID();
      const details: Record<string, string> = {};
      for (const [k, v] of Object.entries(input.details ?? {})) details[k.slice(0, 40)] = String(v).slice(0, 200);
      const data: AuditRecordedData = {
        entry_id: entryId,
        action: input.action,
        ...(input.actorId ? { actor_id: input.actorId } : {}),
        ...(input.orgId ? { org_id: input.orgId } : {}),
        object_type: input.objectType,
        ...(input.objectId ? { object_id: input.objectId } : {}),
        outcome: input.outcome ?? 'success',
        ...(input.ip ? { ip: clip(input.ip, 64) } : {}),
        ...(input.userAgent ? { user_agent: clip(input.userAgent, 300) } : {}),
        details,
        at: clock().toISOString(),
        source: opts.source,
      };
      try {
        await opts.eventStore.appendToStream(auditStream(entryId), [{ id: entryId, type: AUDIT_EVENT, data }], { expectedRevision: 'no_stream' });
      } catch (e) {
        // The same action recorded a second time (a retry, or the same request at the same moment).
        if (!(e instanceof ConcurrencyError)) throw e;
        opts.log?.debug({ entry_id: entryId, action: input.action }, 'audit entry already recorded');
      }
      return entryId;
    },
  };
}

/** The client's address and browser, and its Idempotency-Key (scoped to the user), of a request. */
export function auditSourceOf(request: FastifyRequest, userId?: string | null): AuditSource & { key?: string } {
  const header = request.headers['idempotency-key'];
  const key = typeof header === 'string' && header.length > 0 && header.length <= 200 ? `${userId ?? request.ip}\n${header}` : undefined;
  const ua = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof ua === 'string' ? ua : null, ...(key ? { key } : {}) };
}
