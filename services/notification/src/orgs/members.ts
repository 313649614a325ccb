import type { DecodedEnvelope } from '@baret/platform';
import type { Collections } from '../store.js';

/**
 * Who manages which organisation (issue 28 and 29), from `org-events`: its managers are told of
 * their members' jobs and of the organisation's quota.
 */

/** The managers of an organisation now (user ids). */
export async function managersOf(cols: Collections, orgId: string): Promise<string[]> {
  return (await cols.orgMembers.find({ where: { org_id: orgId, role: 'manager' } })).map((m) => m.id);
}

/** A member added to or removed from an organisation, as the notification service keeps them. */
export async function applyMembership(cols: Collections, event: DecodedEnvelope): Promise<void> {
  const d = event.data as Record<string, unknown>;
  const userId = typeof d.user_id === 'string' ? d.user_id : '';
  const orgId = typeof d.org_id === 'string' ? d.org_id : '';
  switch (event.type) {
    case 'org_member_added':
      if (userId && orgId) await cols.orgMembers.put(userId, { id: userId, org_id: orgId, role: d.role === 'manager' ? 'manager' : 'member' });
      return;
    case 'org_member_removed': {
      // A removal from one organisation read after the user joined another changes nothing.
      const m = userId ? await cols.orgMembers.get(userId) : null;
      if (m && m.org_id === orgId) await cols.orgMembers.delete(userId);
      return;
    }
    default:
  }
}
