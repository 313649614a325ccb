import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { QuotaClient } from '@baret/platform';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Params = Type.Object({ userId: Id, jobId: Id });

/** The quota client over HTTP: what identity (/auth/me) and the job service (POST /analyze) ask at once. */
export function quotaInternalRoutes(client: QuotaClient) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/quota/:userId', { schema: { params: Type.Object({ userId: Id }) } }, async (request) => client.getQuota(request.params.userId));
    app.put('/quota/:userId/jobs/:jobId', { schema: { params: Params } }, async (request) => client.reserve(request.params.userId, request.params.jobId));
    app.delete(
      '/quota/:userId/jobs/:jobId',
      { schema: { params: Params, querystring: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 100 }) }) } },
      async (request, reply) => {
        await client.release(request.params.userId, request.params.jobId, request.query.reason);
        return reply.code(204).send();
      },
    );
  };
}
