import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditAction, type Principal } from '@baret/platform';
import type { JobDoc } from '../../readModels/jobs.js';
import type { JobRoutesDeps } from './deps.js';

/**
 * A view or download of a job, once: the client's Idempotency-Key makes a retry the same action;
 * without one, the same user, job, action and address within one UTC minute are one action (a
 * page opened, its language switched, a retried request), so polling and retries do not flood the log.
 */
export async function auditAccess(deps: Pick<JobRoutesDeps, 'audit' | 'clock'>, request: FastifyRequest, principal: Principal, job: JobDoc, action: AuditAction, details: Record<string, string> = {}) {
  const from = auditSourceOf(request, principal.userId);
  await deps.audit.record({
    action,
    actorId: principal.userId,
    orgId: job.org_id ?? null,
    objectType: 'job',
    objectId: job.id,
    ip: from.ip,
    userAgent: from.userAgent,
    details: { ...details, ...(job.user_id !== principal.userId ? { owner: job.user_id } : {}) },
    key: from.key ?? `${principal.userId}\n${job.id}\n${from.ip ?? ''}\n${(deps.clock?.() ?? new Date()).toISOString().slice(0, 16)}`,
  });
}
