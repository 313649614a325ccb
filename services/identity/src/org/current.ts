import { randomUUID } from 'node:crypto';
import { NotFoundError } from '@baret/platform';
import { view } from './access.js';
import type { OrgDeps } from './deps.js';

/** A user creates an organisation and becomes its manager (only while in none). */
export async function createOrg(deps: OrgDeps, userId: string, name: string) {
  const { queries, log, clock, onOrg, onMembership } = deps;
  const orgId = randomUUID();
  const now = clock();
  // The membership first: it is the guard of "at most one organisation".
  await onMembership(userId, { type: 'join_org', data: { user_id: userId, org_id: orgId, role: 'manager', now } });
  try {
    await onOrg(orgId, { type: 'create_org', data: { org_id: orgId, name, user_id: userId, now } });
  } catch (e) {
    await onMembership(userId, { type: 'leave_org', data: { user_id: userId, org_id: orgId, now: clock() } });
    throw e;
  }
  log.info({ org_id: orgId, user_id: userId }, 'organisation created');
  const org = await queries.org(orgId);
  if (!org) throw new Error('created organisation missing from the read model');
  return view(deps, org, 'manager');
}

/** The organisation a user belongs to now, or null. */
export async function currentOrNull(deps: OrgDeps, userId: string) {
  const { queries } = deps;
  const m = await queries.membershipOf(userId);
  const org = m ? await queries.org(m.org_id) : null;
  return m && org ? view(deps, org, m.role) : null;
}

export async function current(deps: OrgDeps, userId: string) {
  const org = await currentOrNull(deps, userId);
  if (!org) throw new NotFoundError('You do not belong to an organisation.');
  return org;
}

export async function listOrgs(deps: OrgDeps) {
  return (await deps.queries.allOrgs()).map((o) => ({ id: o.id, name: o.name, member_count: o.member_count }));
}
