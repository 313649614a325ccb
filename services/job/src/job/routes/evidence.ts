import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { ForbiddenError, IdParams, NotFoundError, principalOf, problems, type ObjectStore, type Principal } from '@baret/platform';
import type { JobDoc } from '../../readModels/jobs.js';
import { maySeeUnblurred, unblurredPrefix } from '../../unblurred.js';
import type { JobRoutesDeps } from './deps.js';
import { bearer, UNBLURRED_DESCRIPTION, UnblurredQuery } from './schemas.js';

/**
 * Where the evidence a caller asked for is stored: the blurred evidence for anyone who may see the
 * job; the unblurred copy for the managers of the job's organisation only (not its owner, not an admin).
 */
function evidencePrefix(principal: Principal, job: JobDoc, unblurred: boolean | undefined): string {
  if (!unblurred) return `jobs/${job.id}/`;
  if (!maySeeUnblurred(principal, job)) throw new ForbiddenError('Only the managers of the organisation can see unblurred evidence.');
  return unblurredPrefix(job.id);
}

/** Streams a stored evidence JPEG (404 when it does not exist). */
async function sendImage(reply: FastifyReply, objects: ObjectStore, key: string) {
  const head = await objects.head(key);
  if (!head) throw new NotFoundError('This evidence image does not exist.');
  return reply
    .type('image/jpeg')
    .header('content-length', head.size)
    .header('cache-control', 'private, max-age=3600')
    .send(await objects.get(key));
}

/** One evidence image route: `/jobs/:id/<path>` answers the stored JPEG `<file(n)>` under the caller's evidence prefix. */
interface EvidenceImage {
  url: string;
  summary: string;
  maxN: number;
  file: (n: number) => string;
}

const EVIDENCE_IMAGES: readonly EvidenceImage[] = [
  { url: '/jobs/:id/evidence/:n', summary: 'An evidence image (a composite of frames) of a job, faces blurred', maxN: 99, file: (n) => `composites/${n}.jpg` },
  { url: '/jobs/:id/violations/:n', summary: 'The evidence of a violation: the worker cropped out of the frame that shows it, faces blurred', maxN: 999, file: (n) => `violations/${n}.jpg` },
  {
    url: '/jobs/:id/violations/:n/frame',
    summary: 'The whole frame of a violation with the worker boxed, faces blurred: the scene a reviewer judges the crop in (jobs analysed since issue 53; 404 before)',
    maxN: 999,
    file: (n) => `violations/${n}-frame.jpg`,
  },
];

/** The evidence of a job: its composite frames, its violations' crops and their whole frames, faces blurred (or, for managers, not). */
export const evidenceRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    for (const image of EVIDENCE_IMAGES) {
      app.get(
        image.url,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['jobs'],
            summary: image.summary,
            description: UNBLURRED_DESCRIPTION,
            security: bearer,
            params: Type.Object({ id: IdParams.properties.id, n: Type.Integer({ minimum: 0, maximum: image.maxN }) }),
            querystring: UnblurredQuery,
            produces: ['image/jpeg'],
            response: { 200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'JPEG image' }), ...problems(401, 403, 404) },
          },
        },
        async (request, reply) => {
          const job = await deps.visibleJob(principalOf(request), request.params.id);
          const key = `${evidencePrefix(principalOf(request), job, request.query.unblurred)}${image.file(request.params.n)}`;
          return sendImage(reply, deps.objects, key);
        },
      );
    }
  };
