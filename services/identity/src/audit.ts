/**
 * The audit log (issue 30, docs/adr/0023), kept by the identity service: every service appends
 * `audit_recorded` events to its own store (services/platform/src/audit.ts); they reach this
 * service on `audit-events` and are inserted here once each, never updated nor deleted. Managers
 * read their organisation's entries, admins every entry; filters, a cursor, and CSV.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  AUDIT_ACTIONS,
  AUDIT_EVENT,
  AUDIT_OBJECT_TYPES,
  AUDIT_TOPIC,
  decodeEnvelope,
  ForbiddenError,
  IdParams,
  NotFoundError,
  preferredLang,
  principalOf,
  problems,
  runConsumer,
  ValidationError,
  type AuditAction,
  type AuditRecordedData,
  type AuditRecorder,
  type AuditSource,
  type BackgroundTask,
  type DocumentStore,
  type Filter,
  type Lang,
  type MessageBus,
} from '@baret/platform';
import type { Logger } from 'pino';
import type { UserQueries } from './readModels/users.js';

export const AUDIT = 'identity_audit';

/** One entry as kept: written once (`revision` 0 never replaces an existing one). */
export interface AuditDoc extends Record<string, unknown> {
  id: string;
  revision: 0;
  /** `at|id`: the order of the log, and its cursor. */
  sort_key: string;
  at: string;
  action: AuditAction;
  actor_id: string | null;
  org_id: string | null;
  object_type: string;
  object_id: string | null;
  outcome: 'success' | 'failure';
  ip: string | null;
  user_agent: string | null;
  details: Record<string, string>;
  source: string;
}

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
export const AuditEntrySchema = Type.Object({
  id: Str,
  at: Str,
  action: Type.String({ description: `What was done: ${AUDIT_ACTIONS.join(', ')} (more may be added)` }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  actor_id: Type.Union([Str, Type.Null()], { description: 'Who: a user id; null for an unknown address (a failed sign-in) or the system' }),
  actor_email: Type.Union([Str, Type.Null()], { description: 'The actor’s address, read from the account; null once the account is deleted or erased' }),
  org_id: NullableStr,
  object_type: Type.String({ description: `What it was done to: ${AUDIT_OBJECT_TYPES.join(', ')}` }),
  object_id: NullableStr,
  ip: NullableStr,
  user_agent: NullableStr,
  details: Type.Record(Str, Str, { description: 'A few facts: the new and previous role, the setting and its value, the format, why a sign-in failed' }),
});
type AuditEntry = Static<typeof AuditEntrySchema>;
const DateParam = Type.String({ maxLength: 40, description: 'YYYY-MM-DD (a whole UTC day) or an ISO date-time' });
const AuditQuery = Type.Object({
  from: Type.Optional(DateParam),
  to: Type.Optional(DateParam),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 60, pattern: '^[a-z_]+\\.[a-z_]+$', description: `One action: ${AUDIT_ACTIONS.join(', ')}` })),
  actor: Type.Optional(IdParams.properties.id),
  object: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$', description: 'an object id: a job, user, organisation or setting' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'next_cursor of the previous page' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })),
  lang: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])),
});
type AuditQuery = Static<typeof AuditQuery>;
const PageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  next_cursor: Type.Union([Str, Type.Null()], { description: 'Pass as cursor for the next (older) page; null at the end' }),
});

/** The most rows one CSV export holds (newest first). */
export const AUDIT_CSV_MAX = 50_000;

function bound(value: string, edge: 'from' | 'to'): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const t = Date.parse(day ? `${value}T00:00:00.000Z` : value);
  if (!Number.isFinite(t)) throw new ValidationError(`${edge} must be a date (YYYY-MM-DD) or a date-time.`);
  // A date `to` includes its whole day.
  return new Date(day && edge === 'to' ? t + 86_400_000 : t).toISOString();
}

const encodeCursor = (sortKey: string) => Buffer.from(sortKey).toString('base64url');
function decodeCursor(cursor: string): string {
  const s = Buffer.from(cursor, 'base64url').toString();
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z\|[0-9a-f-]{36}$/.test(s)) throw new ValidationError('This cursor is not one the audit log gave.');
  return s;
}

function csvCell(value: string | null | undefined, sep: string): string {
  let s = value ?? '';
  // A cell a spreadsheet would run as a formula is shown as text.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return s.includes(sep) || /["\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const CSV_HEADERS: Record<Lang, string[]> = {
  tr: ['Zaman (UTC)', 'İşlem', 'Sonuç', 'Kullanıcı kimliği', 'E-posta', 'Kuruluş', 'Nesne türü', 'Nesne', 'Adres', 'Tarayıcı', 'Ayrıntılar'],
  en: ['Time (UTC)', 'Action', 'Outcome', 'User id', 'E-mail', 'Organisation', 'Object type', 'Object', 'Address', 'Browser', 'Details'],
};

export interface AuditLogOptions {
  documents: DocumentStore;
  users: UserQueries;
  recorder: AuditRecorder;
  bus?: MessageBus;
  log: Logger;
}

export function createAuditLog(opts: AuditLogOptions) {
  const entries = opts.documents.collection<AuditDoc>(AUDIT);

  /** Keeps one recorded entry: inserted once; a redelivered one changes nothing (no update path exists). */
  async function keep(data: AuditRecordedData): Promise<boolean> {
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

  const tasks: BackgroundTask[] = opts.bus
    ? [
        {
          name: 'consumer:identity-audit',
          run: (signal) =>
            runConsumer(
              opts.bus!,
              'identity-audit',
              [AUDIT_TOPIC],
              async (message) => {
                const event = decodeEnvelope(message.value);
                if (event.type === AUDIT_EVENT) await keep(event.data as unknown as AuditRecordedData);
              },
              signal,
              { maxAttempts: 10, retryDelayMs: 500 },
            ),
        },
      ]
    : [];

  /** One page, newest first. */
  async function page(scope: { orgId?: string }, q: AuditQuery, limit: number, after?: string) {
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

  async function present(rows: AuditDoc[]): Promise<AuditEntry[]> {
    const actorIds = [...new Set(rows.flatMap((r) => (r.actor_id ? [r.actor_id] : [])))];
    const emails = new Map((await opts.users.byIds(actorIds)).map((u) => [u.id, u.email]));
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

  async function list(scope: { orgId?: string }, q: AuditQuery) {
    const { rows, next } = await page(scope, q, q.limit, q.cursor ? decodeCursor(q.cursor) : undefined);
    return { entries: await present(rows), next_cursor: next ? encodeCursor(next) : null };
  }

  async function csv(scope: { orgId?: string }, q: AuditQuery, lang: Lang): Promise<string> {
    const sep = lang === 'tr' ? ';' : ',';
    const lines = [CSV_HEADERS[lang].map((h) => csvCell(h, sep)).join(sep)];
    let after = q.cursor ? decodeCursor(q.cursor) : undefined;
    for (let total = 0; total < AUDIT_CSV_MAX; ) {
      const { rows, next } = await page(scope, q, Math.min(1000, AUDIT_CSV_MAX - total), after);
      for (const e of await present(rows)) {
        const details = Object.entries(e.details)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ');
        lines.push([e.at, e.action, e.outcome, e.actor_id, e.actor_email, e.org_id, e.object_type, e.object_id, e.ip, e.user_agent, details].map((c) => csvCell(c, sep)).join(sep));
      }
      total += rows.length;
      if (!next) break;
      after = next;
    }
    return `\uFEFF${lines.join('\r\n')}\r\n`;
  }

  /**
   * A sign-in, successful or not, for every way of signing in (password here; single sign-on calls
   * it too). `userId` is the account tried (null when the address has none); no address is stored.
   */
  async function recordSignIn(input: AuditSource & { userId: string | null; orgId?: string | null; outcome: 'success' | 'failure'; method: 'password' | 'oidc' | string; reason?: string; key?: string }) {
    await opts.recorder.record({
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

  /** Entries about a user (they did it, or it was done to their account): for their data export. */
  async function about(userId: string): Promise<AuditEntry[]> {
    const [did, done] = await Promise.all([
      entries.find({ where: { actor_id: userId }, orderBy: [{ field: 'sort_key', direction: 'desc' }] }),
      entries.find({ where: { object_type: 'user', object_id: userId }, orderBy: [{ field: 'sort_key', direction: 'desc' }] }),
    ]);
    const byId = new Map([...did, ...done].map((d) => [d.id, d]));
    return present([...byId.values()].sort((a, b) => b.sort_key.localeCompare(a.sort_key)));
  }

  return { keep, list, csv, recordSignIn, about, tasks, record: opts.recorder.record };
}

export type AuditLog = ReturnType<typeof createAuditLog>;

const bearer = [{ bearer: [] }];

function sendCsv(reply: FastifyReply, body: string, name: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'private, no-store')
    .send(body);
}

export const auditRoutes =
  (audit: AuditLog): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const description =
      'Newest first. Filters: `from`, `to` (a date `to` includes its day), `action`, `actor` (a user id), `object` (a job, user or organisation id). ' +
      '`limit` entries a page; `next_cursor` gives the next page. `format=csv` (or the `.csv` path) exports every matching entry (up to 50,000) as UTF-8 CSV with a byte order mark; ' +
      'in Turkish (`lang=tr` or Accept-Language) separated by semicolons. The log is append-only: there is no route to change or delete an entry.';
    const today = () => new Date().toISOString().slice(0, 10);

    /**
     * One audit route in both forms (a page of JSON; the CSV at `{path}.csv`): the organisation's
     * and the admins' differ only in who may read (`preHandler`, `scope`) and which entries (`scope`).
     */
    type AuditRoute = {
      path: string;
      preHandler: (request: FastifyRequest) => Promise<void>;
      summary: { page: string; csv: string };
      params?: typeof IdParams;
      problems: Parameters<typeof problems>;
      /** Throws when the caller may not read this log; else the entries it covers. */
      scope: (request: FastifyRequest) => { orgId?: string };
    };
    const auditRoute = (route: AuditRoute, suffix: '' | '.csv') =>
      app.get(
        `${route.path}${suffix}`,
        {
          preHandler: route.preHandler,
          config: { rateLimit: { max: suffix ? 30 : 300, timeWindow: '1 minute' } },
          schema: {
            tags: ['audit'],
            summary: suffix ? route.summary.csv : route.summary.page,
            description,
            security: bearer,
            ...(route.params ? { params: route.params } : {}),
            querystring: AuditQuery,
            ...(suffix ? { produces: ['text/csv'] } : {}),
            response: { 200: suffix ? Type.Unsafe<string>({ type: 'string', description: 'CSV document' }) : PageSchema, ...problems(...route.problems) },
          },
        },
        async (request, reply) => {
          const scope = route.scope(request);
          const q = request.query;
          if (suffix || q.format === 'csv') {
            const lang = q.lang ?? preferredLang(request.headers['accept-language']);
            return sendCsv(reply, await audit.csv(scope, q, lang), `baret-audit-${today()}.csv`);
          }
          return audit.list(scope, q);
        },
      );

    const orgLog: AuditRoute = {
      path: '/orgs/:id/audit',
      preHandler: app.requireUser,
      summary: {
        page: 'The organisation’s audit log: who viewed, downloaded, deleted or changed what about its jobs, members and settings (managers)',
        csv: 'The organisation’s audit log as CSV (managers)',
      },
      params: IdParams,
      problems: [400, 401, 403, 404, 429],
      scope: (request) => {
        const principal = principalOf(request);
        const orgId = (request.params as Static<typeof IdParams>).id;
        // The organisation's pattern (sites, compliance): another organisation is a 404, a member a 403.
        if (principal.orgId !== orgId) {
          if (!principal.isAdmin) throw new NotFoundError('This organisation does not exist.');
        } else if (principal.orgRole !== 'manager' && !principal.isAdmin) throw new ForbiddenError('Only the managers of the organisation can read its audit log.');
        return { orgId };
      },
    };
    const adminLog: AuditRoute = {
      path: '/admin/audit',
      preHandler: app.requireAdmin,
      summary: {
        page: 'The whole audit log: sign-ins, views, downloads, deletions, role, quota and setting changes (admins)',
        csv: 'The whole audit log as CSV (admins)',
      },
      problems: [400, 401, 403, 429],
      scope: () => ({}),
    };
    for (const suffix of ['', '.csv'] as const) for (const route of [orgLog, adminLog]) auditRoute(route, suffix);
  };
