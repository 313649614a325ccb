import { NotFoundError, orgQuotaAccount, type OrgRole } from '@baret/platform';
import type { OrgDoc } from '../readModels/orgs.js';
import type { OrgDeps } from './deps.js';

/** What a member sees of their organisation, with its plan and quota. */
export async function view(deps: OrgDeps, org: OrgDoc, role: OrgRole) {
  return { id: org.id, name: org.name, role, created_at: org.created_at, member_count: org.member_count, quota: await deps.quota.getQuota(orgQuotaAccount(org.id)) };
}

/** The organisation `userId` belongs to; anyone else is told it does not exist. */
export async function requireMember(deps: OrgDeps, orgId: string, userId: string): Promise<{ org: OrgDoc; role: OrgRole }> {
  const { queries } = deps;
  const m = await queries.membershipOf(userId);
  const org = m?.org_id === orgId ? await queries.org(orgId) : null;
  if (!m || !org) throw new NotFoundError('This organisation does not exist.');
  return { org, role: m.role };
}
