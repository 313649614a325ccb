import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, principalOf, problems } from '@baret/platform';
import { requireOrg } from '../../orgAccess.js';
import { reviewedSamples, writeReviewExport } from '../../reviewExport.js';
import type { JobRoutesDeps } from './deps.js';
import { bearer } from './schemas.js';

/**
 * `GET /orgs/{id}/reviews/export` (issue 53, docs/adr/0033): the organisation's reviewed findings as
 * a labelled set (reviewExport.ts). Its managers only, signed in as themselves: the set carries the
 * organisation's workers' pictures out of Baret, so each export is an audit entry `reviews.exported`.
 */
export const reviewExportRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/orgs/:id/reviews/export',
      {
        preHandler: app.requireLogin,
        // Each export reads every reviewed crop of the organisation: a few an hour are plenty.
        config: { principalLimit: { max: 10, timeWindow: '1 hour' } },
        schema: {
          tags: ['organisations'],
          summary: 'Download the organisation’s reviewed findings as a labelled set (ZIP, YOLO layout: images/, labels/, data.yaml)',
          description:
            'The violations’ crops as stored (faces covered as in the evidence; never the unblurred copy) of the organisation’s done jobs, each labelled with the ' +
            'REVIEWED verdict of its finding (classes 0 helmet, 1 vest, 2 no_helmet, 3 no_vest; findings without a review standing, reviewed not_a_worker, or of ' +
            'other equipment are left out), the head or torso box estimated from the worker’s box. The organisation’s managers only (403 for its members; 404 ' +
            'for anyone else, admins included); signed in as a person (an API key is refused). Each export is an audit entry `reviews.exported`.',
          security: bearer,
          params: IdParams,
          produces: ['application/zip'],
          response: { 200: Type.Any({ description: 'application/zip, streamed' }), ...problems(401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const orgId = request.params.id;
        requireOrg(principal, orgId, 'manager');
        const sets = await reviewedSamples(deps, orgId);
        const at = (deps.clock?.() ?? new Date()).toISOString();
        const from = auditSourceOf(request, principal.userId);
        await deps.audit.record({
          action: 'reviews.exported',
          actorId: principal.userId,
          orgId,
          objectType: 'org',
          objectId: orgId,
          ip: from.ip,
          userAgent: from.userAgent,
          details: { jobs: String(sets.length), images: String(sets.reduce((n, s) => n + s.samples.length, 0)) },
          ...(from.key ? { key: from.key } : {}),
        });
        return reply
          .type('application/zip')
          .header('content-disposition', `attachment; filename="baret-reviews-${at.slice(0, 10)}.zip"`)
          .header('cache-control', 'private, no-store')
          .send(writeReviewExport({ ...deps, log: request.log }, orgId, sets, at));
      },
    );
  };
