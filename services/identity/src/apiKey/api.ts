import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, principalOf, problems } from '@baret/platform';
import type { IdentityCommands } from '../commands.js';
import type { apiKeyQueries } from '../readModels/apiKeys.js';
import { API_KEY_NAME_MAX } from './businessLogic.js';
import { publicKey } from './commands.js';

const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  token_prefix: Type.String(),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
});
const bearer = [{ bearer: [] }];

/** A user's API keys: listed, created (the token shown once), deleted. */
export function apiKeyRoutes(instance: FastifyInstance, deps: { commands: IdentityCommands; keys: ReturnType<typeof apiKeyQueries> }): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/auth/tokens',
    {
      preHandler: app.requireLogin,
      schema: { tags: ['auth'], summary: 'Your API keys', security: bearer, response: { 200: Type.Array(ApiKeySchema), ...problems(401, 403) } },
    },
    async (request) => (await deps.keys.ofUser(principalOf(request).userId)).map(publicKey),
  );

  app.post(
    '/auth/tokens',
    {
      preHandler: app.requireLogin,
      schema: {
        tags: ['auth'],
        summary: 'Create an API key; the token is returned only now',
        security: bearer,
        body: Type.Object({ name: Type.String({ maxLength: API_KEY_NAME_MAX + 200 }) }),
        response: { 201: Type.Composite([ApiKeySchema, Type.Object({ token: Type.String() })]), ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.commands.createApiKey(principalOf(request).userId, request.body.name)),
  );

  app.delete(
    '/auth/tokens/:id',
    {
      preHandler: app.requireLogin,
      schema: { tags: ['auth'], summary: 'Delete one of your API keys; it stops working at once', security: bearer, params: IdParams, response: { 204: Type.Null(), ...problems(401, 403, 404) } },
    },
    async (request, reply) => {
      await deps.commands.deleteApiKey(principalOf(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
