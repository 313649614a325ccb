/** Reading the audit log: one page of entries, newest first, with the actors' addresses. */
import { ValidationError, type Filter } from '@baret/platform';
import type { AuditDoc, AuditEntries } from './auditDoc.js';
import type { AuditEntry, AuditQuery } from './schemas.js';

function bound(value: string, edge: 'from' | 'to'): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const t = Date.parse(day ? `${value}T00:00:00.000Z` : value);
  if (!Number.isFinite(t)) throw new ValidationError(`${edge} must be a date (YYYY-MM-DD) or a date-time.`);
  // A date `to` includes its whole day.
  return new Date(day && edge === 'to' ? t + 86_400_000 : t).toISOString();
}

const encodeCursor = (sortKey: string) => Buffer.from(sortKey).toString('base64url');
export function decodeCursor(cursor: string): string {
  const s = Buffer.from(cursor, 'base64url').toString();
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z\|[0-9a-f-]{36}$/.test(s)) throw new ValidationError('This cursor is not one the audit log gave.');
  return s;
}

/** One page, newest first. */
export async function page({ entries }: AuditEntries, scope: { orgId?: string }, q: AuditQuery, limit: number, after?: string) {
  const where: Filter = {};
  if (scope.orgId) where.org_id = scope.orgId;
  if (q.action) where.action = q.action;
  if (q.actor) where.actor_id = q.actor;
  if (q.object) where.object_id = q.object;
  const range: { $gte?: string; $lt?: string } = {};
  if (q.from) range.$gte = bound(q.from, 'from');
  if (q.to) range.$lt = bound(q.to, 'to');
  if (range.$gte || range.$lt) where.at = range;
  if (after) where.sort_key = { $lt: after };
  const rows = await entries.find({ where, orderBy: [{ field: 'sort_key', direction: 'desc' }], limit: limit + 1 });
  const more = rows.length > limit;
  const kept = rows.slice(0, limit);
  return { rows: kept, next: more ? kept.at(-1)!.sort_key : null };
}

export async function present({ users }: AuditEntries, rows: AuditDoc[]): Promise<AuditEntry[]> {
  const actorIds = [...new Set(rows.flatMap((r) => (r.actor_id ? [r.actor_id] : [])))];
  const emails = new Map((await users.byIds(actorIds)).map((u) => [u.id, u.email]));
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    action: r.action,
    outcome: r.outcome,
    actor_id: r.actor_id,
    actor_email: r.actor_id ? (emails.get(r.actor_id) ?? null) : null,
    org_id: r.org_id,
    object_type: r.object_type,
    object_id: r.object_id,
    ip: r.ip,
    user_agent: r.user_agent,
    details: r.details ?? {},
  }));
}

export async function list(log: AuditEntries, scope: { orgId?: string }, q: AuditQuery) {
  const { rows, next } = await page(log, scope, q, q.limit, q.cursor ? decodeCursor(q.cursor) : undefined);
  return { entries: await present(log, rows), next_cursor: next ? encodeCursor(next) : null };
}

/** Entries about a user (they did it, or it was done to their account): for their data export. */
export async function about(log: AuditEntries, userId: string): Promise<AuditEntry[]> {
  const { entries } = log;
  const [did, done] = await Promise.all([
    entries.find({ where: { actor_id: userId }, orderBy: [{ field: 'sort_key', direction: 'desc' }] }),
    entries.find({ where: { object_type: 'user', object_id: userId }, orderBy: [{ field: 'sort_key', direction: 'desc' }] }),
  ]);
  const byId = new Map([...did, ...done].map((d) => [d.id, d]));
  return present(log, [...byId.values()].sort((a, b) => b.sort_key.localeCompare(a.sort_key)));
}
