import type { AuditAction, Collection } from '@baret/platform';
import type { UserQueries } from '../readModels/users.js';

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

/** What reading the log needs: the kept entries, and the users who are their actors. */
export interface AuditEntries {
  entries: Collection<AuditDoc>;
  users: UserQueries;
}
