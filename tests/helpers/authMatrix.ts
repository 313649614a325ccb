/**
 * The authorization matrix (issue 37): one row per route — every operation of `/openapi.json` and
 * the routes outside it (tus uploads, media, metrics, docs) — saying who may call it. The matrix
 * specs walk every row as every kind of principal, with the ids of other principals' objects, on
 * the embedded run (authz-matrix.e2e.spec.ts) and through the gateway of the distributed run
 * (authz-matrix.distributed.e2e.spec.ts). A route missing here fails them: a new route cannot land
 * without its row.
 */
import { sign as edSign, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairOf } from '@baret/platform';
import { requestVerbatim } from '@baret/platform/testing';
import { multipart } from './jobs.js';

/** Every kind of caller the matrix tries. */
export const PRINCIPALS = [
  'anonymous',
  'forged',
  'alg_none',
  'expired',
  'deleted_account',
  'stranger',
  'member_a',
  'manager_a',
  'member_b',
  'manager_b',
  'admin',
  'api_key_a',
] as const;
export type PrincipalKind = (typeof PRINCIPALS)[number];

/** Credentials that are no credential: each must be a 401 on every route that needs a user. */
const INVALID: ReadonlySet<PrincipalKind> = new Set(['forged', 'alg_none', 'expired', 'deleted_account']);

/**
 * Who may call a route. Objects in paths are always organisation A's and its member's (member_a's
 * job, webhook, key, upload …); organisation B's people, the stranger and the admin are the others.
 * - public: anyone (a bad token may still be refused);
 * - user: any signed-in user (their own data); `login`: the same, but not with an API key (403);
 * - admin: admins only (403 for other users);
 * - owner: member_a's own object (member_a and their API key); `owner_login`: member_a by login only;
 * - org_member / org_manager: organisation A's members (managers, members) / managers only;
 * - job: member_a's job of organisation A: its owner, A's managers and admins;
 * - nobody: no signed-in user gets a 2xx (a pending invitation for another address), 401 without a user;
 * - unreachable: no one at all gets a 2xx: a 400 or 404 problem (401 for a bad credential), never a file or the web app's page (a path out of the media folder).
 * Admins may read and set an organisation's sign-in, audit, units, compliance and retention (support);
 * members read their organisation's settings, sign-in and retention (what applies to them).
 */
export type Access = 'public' | 'user' | 'login' | 'admin' | 'owner' | 'owner_login' | 'org_member' | 'org_manager' | 'job' | 'nobody' | 'unreachable';

/**
 * What a caller must get: 'allow' = not 401/403 (and no 5xx); 'deny' = 403 or 404; 'refused' = a
 * 4xx; 'any' = whatever but a 5xx.
 */
export type Outcome = 'allow' | 'any' | 'deny' | 'refused' | 401 | 403 | 404;

export interface Row {
  method: string;
  /** The OpenAPI path ({id} …), or a route outside the document. */
  path: string;
  access: Access;
  /** Outside /openapi.json (tus HEAD, media, metrics, docs …). */
  extra?: boolean;
  /** The path actually requested when it is not `path` with the fixtures' ids (query-string tricks). */
  url?: (w: World) => string;
  /** The path must reach the server as written (`..` segments): sent over a socket, not resolved by the client. */
  verbatim?: boolean;
  body?: (w: World) => unknown;
  /** Raw body and headers (multipart, tus). */
  raw?: (w: World) => Promise<{ payload?: Buffer; headers: Record<string, string> }> | { payload?: Buffer; headers: Record<string, string> };
  /** Allowed callers are not tried: the call would destroy or change a fixture the other rows need. */
  destructive?: boolean;
  /** Per-principal exceptions to what `access` says. */
  except?: Partial<Record<PrincipalKind, Outcome>>;
}

/** The objects the matrix uses: organisation A's and its member's, made through the API. */
export interface World {
  users: Record<'stranger' | 'member_a' | 'manager_a' | 'member_b' | 'manager_b' | 'admin' | 'deleted_account', { id: string; token: string; email: string }>;
  apiKeyA: { id: string; token: string };
  orgA: string;
  orgB: string;
  siteA: string;
  crewA: string;
  inviteA: string;
  jobA: string;
  webhookA: string;
  uploadA: string;
  uploadStranger: string;
  pushEndpointA: string;
  inboxMessage: string;
  /** Tokens of principals that are no valid credential. */
  invalid: Record<'forged' | 'alg_none' | 'expired', string>;
}

const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (s: string) => Buffer.from(s).toString('base64');
const json = (value: unknown) => value;
const HOOK_URL = 'https://93.184.215.14/baret-hook';
const PUSH = (endpoint: string) => ({ endpoint, keys: { p256dh: 'BKxxx-matrix-p256dh', auth: 'matrix-auth' } });

/**
 * The matrix: one row per route. Keep it sorted like /openapi.json (by service), extras at the end.
 */
export const MATRIX: readonly Row[] = [
  // gateway, health
  { method: 'GET', path: '/healthz', access: 'public' },
  { method: 'GET', path: '/readyz', access: 'public' },
  // identity: accounts
  { method: 'POST', path: '/auth/register', access: 'public', body: () => ({ email: `new-${randomUUID()}@example.com`, password: 'correct horse battery' }) },
  { method: 'POST', path: '/auth/login', access: 'public', body: () => ({ email: 'nobody@example.com', password: 'wrong password 1' }) },
  { method: 'POST', path: '/auth/password-reset', access: 'public', body: () => ({ email: 'nobody@example.com' }) },
  { method: 'POST', path: '/auth/password-reset/confirm', access: 'public', body: () => ({ token: 'x'.repeat(40), password: 'new password 123' }) },
  { method: 'POST', path: '/auth/verify-email', access: 'public', body: () => ({ token: 'x'.repeat(40) }) },
  { method: 'POST', path: '/auth/verify-email/resend', access: 'user' },
  { method: 'GET', path: '/admin/settings', access: 'admin' },
  { method: 'POST', path: '/admin/accounts/mail', access: 'admin', body: () => ({ email: 'nobody@example.com', action: 'verify' }) },
  { method: 'PUT', path: '/admin/settings', access: 'admin', body: () => ({ require_email_verification: false }) },
  { method: 'GET', path: '/auth/me', access: 'user' },
  { method: 'GET', path: '/auth/tokens', access: 'login' },
  { method: 'POST', path: '/auth/tokens', access: 'login', body: () => ({ name: 'matrix' }) },
  { method: 'DELETE', path: '/auth/tokens/{id}', access: 'owner_login', destructive: true },
  { method: 'DELETE', path: '/me', access: 'user', destructive: true, body: () => ({ password: 'wrong password 1' }) },
  { method: 'DELETE', path: '/admin/users/{id}', access: 'admin', destructive: true },
  // identity: organisations
  { method: 'POST', path: '/orgs', access: 'user', destructive: true, body: () => ({ name: 'Matrix Org' }) },
  { method: 'GET', path: '/orgs/current', access: 'user' },
  { method: 'POST', path: '/orgs/{id}/invites', access: 'org_manager', body: () => ({ email: `invitee-${randomUUID()}@example.com`, role: 'member' }) },
  { method: 'GET', path: '/orgs/{id}/invites', access: 'org_manager' },
  // The invitation's token is the secret: whoever holds it may read what it is for, logged in or
  // not (issue 54: the login and sign-up pages name the inviting organisation).
  { method: 'GET', path: '/invites/{token}', access: 'public' },
  // Only the invited address can accept it (pending@…, none of the principals).
  // Members of an organisation are told they already belong to one (409).
  { method: 'POST', path: '/invites/{token}/accept', access: 'nobody', except: { member_a: 'refused', manager_a: 'refused', member_b: 'refused', manager_b: 'refused', api_key_a: 'refused' } },
  // Members read which blurring and which time zone apply (issue 54); managers change them.
  { method: 'GET', path: '/orgs/{id}/settings', access: 'org_member' },
  { method: 'PATCH', path: '/orgs/{id}/settings', access: 'org_manager', body: () => ({ blur_third_party: true, time_zone: 'Europe/Istanbul' }) },
  { method: 'GET', path: '/orgs/{id}/members', access: 'org_member' },
  { method: 'PATCH', path: '/orgs/{id}/members/{user_id}', access: 'org_manager', destructive: true, body: () => ({ role: 'member' }) },
  // {user_id} is member_a: leaving one's organisation is one's own right.
  { method: 'DELETE', path: '/orgs/{id}/members/{user_id}', access: 'org_manager', destructive: true, except: { member_a: 'allow', api_key_a: 'allow' } },
  // identity: single sign-on (not configured here: the routes say so)
  { method: 'GET', path: '/auth/sso', access: 'public' },
  { method: 'POST', path: '/auth/sso/start', access: 'public', body: () => ({}) },
  { method: 'POST', path: '/auth/sso/callback', access: 'public', body: () => ({ code: 'x', state: 'y' }) },
  { method: 'GET', path: '/orgs/{id}/sign-in', access: 'org_member', except: { admin: 'allow' } },
  { method: 'PUT', path: '/orgs/{id}/sign-in', access: 'org_manager', body: () => ({ password_login: true }), except: { admin: 'allow' } },
  // identity: audit log
  { method: 'GET', path: '/orgs/{id}/audit', access: 'org_manager', except: { admin: 'allow' } },
  { method: 'GET', path: '/admin/audit', access: 'admin' },
  { method: 'GET', path: '/orgs/{id}/audit.csv', access: 'org_manager', except: { admin: 'allow' } },
  { method: 'GET', path: '/admin/audit.csv', access: 'admin' },
  // quota
  { method: 'GET', path: '/admin/users/quotas', access: 'admin' },
  { method: 'PATCH', path: '/admin/users/{id}/quota', access: 'admin', body: () => ({ lifetime_limit: null }) },
  { method: 'GET', path: '/admin/orgs/quotas', access: 'admin' },
  { method: 'PATCH', path: '/admin/orgs/{id}/quota', access: 'admin', body: () => ({ plan_name: 'pro' }) },
  { method: 'POST', path: '/usage/request-upgrade', access: 'user', body: () => ({ origin: 'profile' }) },
  // notification
  { method: 'GET', path: '/notifications', access: 'user' },
  // No principal's notification exists under this id: 404 for everyone, never another's.
  { method: 'POST', path: '/notifications/{id}/read', access: 'user', except: { member_a: 404, api_key_a: 404, stranger: 404, manager_a: 404, member_b: 404, manager_b: 404, admin: 404 } },
  { method: 'POST', path: '/notifications/read-all', access: 'user' },
  { method: 'GET', path: '/notifications/preferences', access: 'user' },
  { method: 'PUT', path: '/notifications/preferences', access: 'user', body: () => ({ language: 'en' }) },
  // The signed token is the credential (one-click unsubscribe from a mail): a wrong one is refused.
  { method: 'GET', path: '/notifications/unsubscribe', access: 'public', url: () => '/notifications/unsubscribe?token=forged.token' },
  { method: 'POST', path: '/notifications/unsubscribe', access: 'public', url: () => '/notifications/unsubscribe?token=forged.token' },
  { method: 'GET', path: '/push/vapid-public-key', access: 'public' },
  { method: 'POST', path: '/push/subscriptions', access: 'user', body: () => PUSH(`https://93.184.215.14/push/${randomUUID()}`) },
  { method: 'DELETE', path: '/push/subscriptions', access: 'user', body: () => ({ endpoint: `https://93.184.215.14/push/${randomUUID()}` }) },
  { method: 'POST', path: '/webhooks', access: 'user', body: () => ({ url: HOOK_URL, events: ['job.completed'] }) },
  { method: 'GET', path: '/webhooks', access: 'user' },
  { method: 'DELETE', path: '/webhooks/{id}', access: 'owner', destructive: true },
  { method: 'GET', path: '/webhooks/{id}/deliveries', access: 'owner' },
  { method: 'GET', path: '/admin/outbox', access: 'admin' },
  // Whether this Baret sends mail (issue 54): the sign-up and password-reset pages ask before anyone logs in.
  { method: 'GET', path: '/mail/status', access: 'public' },
  { method: 'POST', path: '/contact', access: 'public', body: () => ({ email: 'visitor@example.com', message: 'Matrix: a question about plans.' }) },
  { method: 'GET', path: '/admin/inbox', access: 'admin' },
  { method: 'POST', path: '/admin/inbox/{id}/handled', access: 'admin', body: () => ({ handled: true }) },
  { method: 'GET', path: '/usage/upgrade-request', access: 'user' },
  // job
  { method: 'POST', path: '/analyze', access: 'user', destructive: true, raw: () => analyzeBody() },
  { method: 'GET', path: '/jobs', access: 'user' },
  { method: 'GET', path: '/jobs/{id}', access: 'job' },
  { method: 'GET', path: '/jobs/{id}/result.json', access: 'job' },
  // No evidence yet (the job is queued): 404 for everyone allowed, and the same 404 for the others.
  { method: 'GET', path: '/jobs/{id}/evidence/{n}', access: 'job', except: { member_a: 'any', api_key_a: 'any', manager_a: 'any', admin: 'any' } },
  { method: 'GET', path: '/jobs/{id}/violations/{n}', access: 'job', except: { member_a: 'any', api_key_a: 'any', manager_a: 'any', admin: 'any' } },
  { method: 'GET', path: '/jobs/{id}/violations/{n}/frame', access: 'job', except: { member_a: 'any', api_key_a: 'any', manager_a: 'any', admin: 'any' } },
  { method: 'GET', path: '/jobs/{id}/report.pdf', access: 'job' },
  // Reviews (issue 53): whoever sees the job reads them; only the managers of its organisation review (the job is queued: a 409 for
  // manager_a). Its owner, a crew member, may not clear their own findings, the admin does not sign, an API key is no signature: 403.
  { method: 'GET', path: '/jobs/{id}/reviews', access: 'job' },
  {
    method: 'POST',
    path: '/jobs/{id}/reviews',
    access: 'job',
    body: () => ({ worker: 1, group: 'pic1,pic2,pic3', verdict: 'worn' }),
    except: { member_a: 403, api_key_a: 403, admin: 403 },
  },
  // The organisation's reviewed findings as a labelled set (issue 53): its managers only, signed in as themselves (member_a and their
  // API key: 403; the admin and organisation B: 404, ADR 0033).
  { method: 'GET', path: '/orgs/{id}/reviews/export', access: 'org_manager', except: { member_a: 403, api_key_a: 403, admin: 404, manager_b: 404, member_b: 404, stranger: 404 } },
  { method: 'GET', path: '/admin/jobs', access: 'admin' },
  { method: 'POST', path: '/admin/jobs/{id}/cancel', access: 'admin', destructive: true },
  { method: 'DELETE', path: '/admin/jobs/{id}', access: 'admin', destructive: true },
  { method: 'GET', path: '/admin/usage', access: 'admin' },
  { method: 'POST', path: '/orgs/{id}/sites', access: 'org_manager', body: () => ({ name: `Site ${randomUUID().slice(0, 8)}`, city: 'İstanbul' }) },
  { method: 'GET', path: '/orgs/{id}/sites', access: 'org_member', except: { admin: 'allow' } },
  { method: 'POST', path: '/orgs/{id}/sites/{unit_id}/archive', access: 'org_manager', destructive: true },
  { method: 'POST', path: '/orgs/{id}/crews', access: 'org_manager', body: () => ({ name: `Crew ${randomUUID().slice(0, 8)}` }) },
  { method: 'GET', path: '/orgs/{id}/crews', access: 'org_member', except: { admin: 'allow' } },
  { method: 'POST', path: '/orgs/{id}/crews/{unit_id}/archive', access: 'org_manager', destructive: true },
  { method: 'GET', path: '/orgs/{id}/compliance', access: 'org_manager', url: (w) => `/orgs/${w.orgA}/compliance?by=site&interval=week`, except: { admin: 'allow' } },
  { method: 'GET', path: '/orgs/{id}/jobs.csv', access: 'org_manager', except: { admin: 'allow' } },
  { method: 'GET', path: '/admin/retention', access: 'admin' },
  { method: 'PUT', path: '/admin/retention', access: 'admin', body: () => ({ days: 3650 }) },
  { method: 'GET', path: '/orgs/{id}/retention', access: 'org_member', except: { admin: 'allow' } },
  { method: 'PUT', path: '/orgs/{id}/retention', access: 'org_manager', body: () => ({ days: 3650 }), except: { admin: 'allow' } },
  { method: 'DELETE', path: '/orgs/{id}/retention', access: 'org_manager', except: { admin: 'allow' } },
  { method: 'GET', path: '/me/export', access: 'user' },
  // tus uploads
  { method: 'POST', path: '/uploads', access: 'user', raw: () => ({ headers: { ...TUS, 'upload-length': '1000', 'upload-metadata': `filename ${b64('matrix.mp4')},filetype ${b64('video/mp4')}` } }) },
  { method: 'PATCH', path: '/uploads/{id}', access: 'owner', raw: () => ({ payload: Buffer.alloc(0), headers: { ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } }) },
  { method: 'DELETE', path: '/uploads/{id}', access: 'owner', destructive: true, raw: () => ({ headers: TUS }) },
  { method: 'GET', path: '/tasks', access: 'public' },

  // ——— routes outside /openapi.json ———
  { method: 'HEAD', path: '/uploads/{id}', access: 'owner', extra: true, raw: () => ({ headers: TUS }) },
  // The tus server acts on the id at the end of the whole URL: a stranger's own id in the path and the
  // victim's after a query string must not reach the victim's upload (issue 37, point 1); the
  // upload's own test (tests/resumable-uploads.int.spec.ts) checks the victim's upload is untouched.
  ...(['HEAD', 'PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      method,
      path: `/uploads/{own}?x=/{victim} (${method})`,
      access: 'nobody',
      extra: true,
      url: (w) => `/uploads/${w.uploadStranger}?x=/${w.uploadA}`,
      raw: () => ({ ...(method === 'PATCH' ? { payload: Buffer.from('hijack') } : {}), headers: { ...TUS, ...(method === 'PATCH' ? { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } : {}) } }),
      // Signed in, the address itself is refused (400: it names two uploads) before any upload is touched.
      except: Object.fromEntries(PRINCIPALS.filter((k) => k !== 'anonymous' && !INVALID.has(k)).map((k) => [k, 'refused'])),
    }),
  ),
  { method: 'GET', path: '/metrics', access: 'public', extra: true },
  { method: 'GET', path: '/openapi.json', access: 'public', extra: true },
  { method: 'GET', path: '/docs', access: 'public', extra: true },
  { method: 'GET', path: '/media/demo.json', access: 'public', extra: true },
  { method: 'GET', path: '/media/demo.mov', access: 'public', extra: true },
  // Nothing outside the media folder: the data folder's database is two levels up.
  { method: 'GET', path: '/media/../baret.sqlite', access: 'unreachable', extra: true, verbatim: true, url: () => '/media/..%2f..%2fbaret.sqlite' },
  { method: 'GET', path: '/media/../../etc/passwd', access: 'unreachable', extra: true, verbatim: true, url: () => '/media/%2e%2e/%2e%2e/%2e%2e/etc/passwd' },
  { method: 'GET', path: '/media/../../baret.sqlite (plain dots)', access: 'unreachable', extra: true, verbatim: true, url: () => '/media/../../baret.sqlite' },
  { method: 'GET', path: '/media%2f..%2f..%2fbaret.sqlite', access: 'unreachable', extra: true, verbatim: true, url: () => '/media%2f..%2f..%2fbaret.sqlite' },
  { method: 'GET', path: '/', access: 'public', extra: true },
  { method: 'OPTIONS', path: '/jobs', access: 'public', extra: true, raw: () => ({ headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } }) },
];

export const rowName = (row: Row): string => `${row.method} ${row.path}`;

let clip: Buffer | undefined;
/** The test video all analyses upload (set once by the spec). */
export function useClip(video: Buffer): void {
  clip = video;
}
async function analyzeBody() {
  if (!clip) throw new Error('useClip() first');
  return multipart(
    { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 1, frames_per_composite: 2 }) },
    { name: 'direk.mp4', type: 'video/mp4', data: clip },
  );
}

/** What `kind` must get on a row. */
export function expected(row: Row, kind: PrincipalKind): Outcome {
  const exception = row.except?.[kind];
  if (exception !== undefined) return exception;
  if (row.access === 'public') return 'any';
  // A bad credential is refused first (401), whatever the path.
  if (row.access === 'unreachable') return INVALID.has(kind) ? 401 : 'refused';
  if (row.access === 'nobody') return kind === 'anonymous' || INVALID.has(kind) ? 401 : 'deny';
  if (kind === 'anonymous' || INVALID.has(kind)) return 401;
  switch (row.access) {
    case 'user':
      return 'allow';
    case 'login':
      return kind === 'api_key_a' ? 403 : 'allow';
    case 'admin':
      return kind === 'admin' ? 'allow' : 403;
    case 'owner':
      return kind === 'member_a' || kind === 'api_key_a' ? 'allow' : 'deny';
    case 'owner_login':
      return kind === 'member_a' ? 'allow' : kind === 'api_key_a' ? 403 : 'deny';
    case 'org_member':
      return kind === 'member_a' || kind === 'manager_a' || kind === 'api_key_a' ? 'allow' : 'deny';
    case 'org_manager':
      return kind === 'manager_a' ? 'allow' : 'deny';
    case 'job':
      return kind === 'member_a' || kind === 'api_key_a' || kind === 'manager_a' || kind === 'admin' ? 'allow' : 'deny';
  }
}

/** Whether a status meets an outcome. */
export function meets(outcome: Outcome, status: number): boolean {
  if (status >= 500) return false;
  if (outcome === 'any') return true;
  if (outcome === 'allow') return status !== 401 && status !== 403;
  if (outcome === 'deny') return status === 403 || status === 404;
  if (outcome === 'refused') return status >= 400;
  return status === outcome;
}

/** The concrete path of a row with the world's ids: objects of organisation A and its member. */
export function urlOf(row: Row, w: World): string {
  if (row.url) return row.url(w);
  return row.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const p = row.path;
    if (name === 'user_id') return w.users.member_a.id;
    if (name === 'unit_id') return p.includes('/crews/') ? w.crewA : w.siteA;
    if (name === 'n') return '0';
    if (name === 'token') return w.inviteA;
    if (p.startsWith('/orgs/') || p.startsWith('/admin/orgs/')) return w.orgA;
    if (p.startsWith('/jobs/') || p.startsWith('/admin/jobs/')) return w.jobA;
    if (p.startsWith('/admin/users/')) return w.users.member_a.id;
    if (p.startsWith('/webhooks/')) return w.webhookA;
    if (p.startsWith('/auth/tokens/')) return w.apiKeyA.id;
    if (p.startsWith('/uploads/')) return w.uploadA;
    if (p.startsWith('/admin/inbox/')) return w.inboxMessage;
    if (p.startsWith('/notifications/')) return randomUUID();
    throw new Error(`no id for {${name}} in ${p}`);
  });
}

/** The credential `kind` sends (none for anonymous). */
export function tokenOf(kind: PrincipalKind, w: World): string | undefined {
  switch (kind) {
    case 'anonymous':
      return undefined;
    case 'forged':
    case 'alg_none':
    case 'expired':
      return w.invalid[kind];
    case 'api_key_a':
      return w.apiKeyA.token;
    default:
      return w.users[kind].token;
  }
}

/** Access tokens that must never pass: signed with another key, unsigned (alg none), expired. */
export function invalidTokens(secret: string, userId: string): World['invalid'] {
  const now = Math.floor(Date.now() / 1000);
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signed = (key: ReturnType<typeof keyPairOf>, payload: Record<string, unknown>) => {
    const data = `${part({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })}.${part(payload)}`;
    return `${data}.${edSign(null, Buffer.from(data), key.privateKey).toString('base64url')}`;
  };
  const real = keyPairOf(secret);
  return {
    // Another secret's key, presenting the real key's id.
    forged: (() => {
      const other = keyPairOf('an attacker secret, not the server one 0123456789');
      const data = `${part({ alg: 'EdDSA', typ: 'JWT', kid: real.kid })}.${part({ sub: userId, iat: now, exp: now + 3600 })}`;
      return `${data}.${edSign(null, Buffer.from(data), other.privateKey).toString('base64url')}`;
    })(),
    alg_none: `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: userId, iat: now, exp: now + 3600 })}.`,
    expired: signed(real, { sub: userId, iat: now - 7200, exp: now - 3600 }),
  };
}

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}
/**
 * One request, by the embedded app's inject or by fetch through the gateway; `verbatim`: over a
 * socket with the path sent byte for byte (requestVerbatim), as inject and fetch resolve `..`.
 */
export type Caller = (req: CallerRequest) => Promise<Answer>;
export interface CallerRequest {
  method: string;
  url: string;
  token?: string;
  payload?: Buffer | string;
  headers?: Record<string, string>;
  verbatim?: boolean;
}

/**
 * A built web app of one page, for the run the matrix walks: the fallback for the app's routes is
 * on, so a path the gateway answers with the app's page is seen. Removed by `remove`.
 */
export function webAppFolder(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'baret-matrix-web-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><title>Baret</title></head><body></body></html>');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A `verbatim` request to the server listening at `base` (in English, as every matrix call). */
export async function callVerbatim(base: string, { method, url, token, payload, headers }: CallerRequest): Promise<Answer> {
  const res = await requestVerbatim(base, { method, path: url, body: payload, headers: { 'accept-language': 'en', ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { status: res.status, body: res.body, headers: res.headers };
}

export interface Setup {
  call: Caller;
  /** Registers and logs in. */
  signUp(email: string): Promise<{ id: string; token: string }>;
  /** An admin, signed in (an address of BARET_ADMIN_EMAILS, confirmed). */
  admin: { id: string; token: string; email: string };
  jwtSecret: string;
  video: Buffer;
}

const PASSWORD = 'correct horse battery';

/** Builds the world through the API: two organisations with a manager and a member each, a stranger, an admin, and member_a's objects. */
export async function buildWorld(s: Setup): Promise<World> {
  useClip(s.video);
  const send = async (method: string, url: string, token: string | undefined, body?: unknown, expectStatus?: number) => {
    const res = await s.call({ method, url, token, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    if (expectStatus !== undefined && res.status !== expectStatus) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
    return JSON.parse(res.body || 'null') as Record<string, unknown> & { id: string; token: string };
  };
  const person = async (name: string) => {
    const email = `${name}-${randomUUID().slice(0, 8)}@example.com`;
    return { ...(await s.signUp(email)), email };
  };
  const admin = s.admin;
  const [stranger, memberA, managerA, memberB, managerB, gone] = [await person('stranger'), await person('member-a'), await person('manager-a'), await person('member-b'), await person('manager-b'), await person('gone')];
  const org = async (manager: { token: string }, member: { token: string; email: string }, name: string) => {
    const created = await send('POST', '/orgs', manager.token, { name }, 201);
    const invite = await send('POST', `/orgs/${created.id}/invites`, manager.token, { email: member.email, role: 'member' }, 201);
    await send('POST', `/invites/${invite.token}/accept`, member.token, undefined, 200);
    return created.id;
  };
  const orgA = await org(managerA, memberA, 'Matrix A Elektrik');
  const orgB = await org(managerB, memberB, 'Matrix B Enerji');
  await send('PATCH', `/admin/orgs/${orgA}/quota`, admin.token, { plan_name: 'pro', lifetime_limit: null }, 200);
  const siteA = (await send('POST', `/orgs/${orgA}/sites`, managerA.token, { name: 'Kadıköy Trafo', city: 'İstanbul' }, 201)).id;
  const crewA = (await send('POST', `/orgs/${orgA}/crews`, managerA.token, { name: 'Hat Bakım' }, 201)).id;
  const inviteA = (await send('POST', `/orgs/${orgA}/invites`, managerA.token, { email: 'pending@example.com', role: 'manager' }, 201)).token;
  const analysis = await analyzeBody();
  const job = await s.call({ method: 'POST', url: '/analyze', token: memberA.token, payload: analysis.payload, headers: analysis.headers });
  if (job.status !== 202) throw new Error(`analyze: ${job.status} ${job.body}`);
  const jobA = (JSON.parse(job.body) as { job_id: string }).job_id;
  const webhookA = (await send('POST', '/webhooks', memberA.token, { url: HOOK_URL, events: ['job.completed'] }, 201)).id;
  const pushEndpointA = `https://93.184.215.14/push/${randomUUID()}`;
  await send('POST', '/push/subscriptions', memberA.token, PUSH(pushEndpointA), 201);
  const key = await send('POST', '/auth/tokens', memberA.token, { name: 'truck 7' }, 201);
  const upload = async (token: string) => {
    const res = await s.call({ method: 'POST', url: '/uploads', token, headers: { ...TUS, 'upload-length': '1000', 'upload-metadata': `filename ${b64('site.mp4')},filetype ${b64('video/mp4')}` } });
    if (res.status !== 201) throw new Error(`tus create: ${res.status} ${res.body}`);
    return String(res.headers.location).split('/').pop()!;
  };
  const uploadA = await upload(memberA.token);
  const uploadStranger = await upload(stranger.token);
  const contact = (await send('POST', '/contact', undefined, { email: 'visitor@example.com', message: 'Is there a plan for 40 crews?' }, 202)) as unknown as { message_id: string };
  // An erased account: its token outlives it, and must not work.
  await send('DELETE', '/me', gone.token, { password: PASSWORD }, 204);
  return {
    users: { stranger, member_a: memberA, manager_a: managerA, member_b: memberB, manager_b: managerB, admin, deleted_account: gone },
    apiKeyA: { id: key.id, token: key.token },
    orgA,
    orgB,
    siteA,
    crewA,
    inviteA,
    jobA,
    webhookA,
    uploadA,
    uploadStranger,
    pushEndpointA,
    inboxMessage: contact.message_id,
    invalid: invalidTokens(s.jwtSecret, memberA.id),
  };
}

/** The (method, path) of every operation of an OpenAPI document. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => methods.has(m)).map((m) => `${m.toUpperCase()} ${path}`));
}

export interface Failure {
  row: string;
  principal: PrincipalKind | 'check';
  url: string;
  expected: Outcome | string;
  status: number;
  body: string;
}

/**
 * Walks every row as every principal: denied callers first (nothing they do may change the
 * world), then the allowed ones (destructive rows skipped for them). Returns what failed.
 */
export async function walk(rows: readonly Row[], w: World, call: Caller): Promise<{ failures: Failure[]; requests: number }> {
  const failures: Failure[] = [];
  let requests = 0;
  const tryRow = async (row: Row, kind: PrincipalKind, outcome: Outcome) => {
    const url = urlOf(row, w);
    const raw = row.raw ? await row.raw(w) : undefined;
    const body = row.body?.(w);
    const token = tokenOf(kind, w);
    const res = await call({
      method: row.method,
      url,
      token,
      ...(row.verbatim ? { verbatim: true } : {}),
      ...(raw ? { payload: raw.payload, headers: raw.headers } : body === undefined ? {} : { payload: JSON.stringify(json(body)), headers: { 'content-type': 'application/json' } }),
    });
    requests++;
    // Out of the media folder: a problem answer, never a file and never the web app's page.
    const problem = String(res.headers['content-type']).includes('application/problem+json');
    const unreachable = row.access !== 'unreachable' || (problem && (outcome === 401 || res.status === 400 || res.status === 404));
    if (!meets(outcome, res.status) || !unreachable) {
      failures.push({ row: rowName(row), principal: kind, url, expected: row.access === 'unreachable' ? '400 or 404 problem+json' : outcome, status: res.status, body: res.body.slice(0, 300) });
    }
  };
  for (const pass of ['denied', 'allowed'] as const) {
    for (const row of rows) {
      for (const kind of PRINCIPALS) {
        const outcome = expected(row, kind);
        const allowed = outcome === 'allow' || outcome === 'any';
        if ((pass === 'denied') === allowed) continue;
        if (allowed && row.destructive) continue;
        await tryRow(row, kind, outcome);
      }
    }
  }
  return { failures, requests };
}

/** A stranger registering member_a's push endpoint must not take the subscription over (issue 37, point 3). */
export async function pushTakeover(w: World, call: Caller, ownerOfEndpoint: (endpoint: string) => Promise<string | null>): Promise<Failure | null> {
  const res = await call({ method: 'POST', url: '/push/subscriptions', token: w.users.stranger.token, payload: JSON.stringify(PUSH(w.pushEndpointA)), headers: { 'content-type': 'application/json' } });
  const owner = await ownerOfEndpoint(w.pushEndpointA);
  if (res.status < 500 && owner === w.users.member_a.id) return null;
  return { row: 'push subscription takeover', principal: 'stranger', url: '/push/subscriptions', expected: `owner stays member_a (${w.users.member_a.id})`, status: res.status, body: `owner now ${owner}` };
}
