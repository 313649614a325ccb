import { ForbiddenError, NotFoundError, type Principal } from '@baret/platform';

/**
 * Who may do what with an organisation's data: its members read, its managers also change and
 * see everyone's jobs; admins may read any. Anyone else is told it does not exist.
 */
export function requireOrg(principal: Principal, orgId: string, need: 'member' | 'manager'): void {
  if (principal.orgId !== orgId) {
    if (principal.isAdmin && need === 'member') return;
    throw new NotFoundError('This organisation does not exist.');
  }
  if (need === 'manager' && principal.orgRole !== 'manager') throw new ForbiddenError('Only the managers of the organisation can do this.');
}
