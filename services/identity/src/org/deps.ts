import { handleCommand, KeyedMutex, projectInline, type AuditRecorder, type CommandResult, type DocumentStore, type EventStore, type Projection, type QuotaClient } from '@baret/platform';
import type { Logger } from 'pino';
import { membershipDecider, type MembershipCommand } from '../membership/businessLogic.js';
import { membershipStream, type MembershipEvent, type MembershipState } from '../membership/membership.js';
import { membershipsProjection, orgQueries, orgsProjection, type OrgQueries } from '../readModels/orgs.js';
import type { UserQueries } from '../readModels/users.js';
import { orgDecider, type OrgCommand } from './businessLogic.js';
import { orgStream, type OrgEvent, type OrgState } from './org.js';

export interface OrgsOptions {
  eventStore: EventStore;
  documents: DocumentStore;
  users: UserQueries;
  quota: QuotaClient;
  log: Logger;
  clock: () => Date;
  /** Records role changes in the audit log (issue 30). */
  audit?: AuditRecorder;
  /**
   * The read models a command updates at once (default `orgProjections`). The identity service
   * passes them wrapped so each applied event is announced to the gateways that cache principals:
   * a role change then holds on the member's next request, not when the background pass catches up.
   */
  projections?: Projection[];
}

export const orgProjections: Projection[] = [orgsProjection, membershipsProjection];

/** What every organisation use case is handed once: the read models, and the two streams it decides on. */
export interface OrgDeps {
  users: UserQueries;
  quota: QuotaClient;
  log: Logger;
  clock: () => Date;
  audit?: AuditRecorder;
  queries: OrgQueries;
  /** Decides a command on the organisation's stream and updates the read models. */
  onOrg(orgId: string, command: OrgCommand): Promise<CommandResult<OrgState, OrgEvent>>;
  /** Decides a command on the user's membership stream and updates the read models. */
  onMembership(userId: string, command: MembershipCommand): Promise<CommandResult<MembershipState, MembershipEvent>>;
}

export function createOrgDeps(opts: OrgsOptions): OrgDeps {
  const { eventStore, documents, users, log, clock } = opts;
  const projections = opts.projections ?? orgProjections;
  const queries = orgQueries(documents);

  // A command and its projection run as one per stream, so concurrent commands (invitations sent
  // at once) reach the read models in the order they were stored.
  const locks = new KeyedMutex();
  const onOrg = (orgId: string, command: OrgCommand) =>
    locks.run(orgStream(orgId), async () => {
      const result = await handleCommand(eventStore, orgStream(orgId), orgDecider, command);
      await projectInline(projections, result.recorded, documents, eventStore);
      return result;
    });
  const onMembership = (userId: string, command: MembershipCommand) =>
    locks.run(membershipStream(userId), async () => {
      const result = await handleCommand(eventStore, membershipStream(userId), membershipDecider, command);
      await projectInline(projections, result.recorded, documents, eventStore);
      return result;
    });

  return { users, quota: opts.quota, log, clock, audit: opts.audit, queries, onOrg, onMembership };
}
