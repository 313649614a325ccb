import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError, principalChangesRoute, type AuthResolvers, type PrincipalChanges, type UserDirectory } from '@baret/platform';

const Id = Type.String({ minLength: 1, maxLength: 100 });

/** What the gateway and the quota service ask identity at once (docs/adr/0011). */
export function identityInternalRoutes(deps: { auth: AuthResolvers; directory: UserDirectory; changes: PrincipalChanges; personalData: (userId: string) => Promise<unknown> }) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    // The public keys of the access tokens identity signs: the gateway verifies tokens with them (docs/adr/0019).
    app.get('/jwks', async (_request, reply) => reply.header('cache-control', 'max-age=300').send(instance.accessTokenJwks));
    // Which users' principals changed, as it happens: the gateway drops what it cached of them.
    await app.register(principalChangesRoute(deps.changes));
    app.get('/users', async () => deps.directory.listUsers());
    // A person's profile for their export (issue 30; the job service writes the ZIP).
    app.get('/personal-data/:id', { schema: { params: Type.Object({ id: Id }) } }, async (request) => deps.personalData(request.params.id));
    app.get('/orgs', async () => deps.directory.listOrgs());
    app.post('/users/lookup', { schema: { body: Type.Object({ ids: Type.Array(Id, { maxItems: 1000 }) }) } }, async (request) =>
      deps.directory.getUsers(request.body.ids),
    );
    app.get('/principals/:id', { schema: { params: Type.Object({ id: Id }) } }, async (request) => {
      const user = await deps.auth.userById(request.params.id);
      if (!user) throw new NotFoundError('This user does not exist.');
      return user;
    });
    app.post('/principals/by-api-key', { schema: { body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 500 }) }) } }, async (request) => {
      const user = await deps.auth.userByApiKey(request.body.token);
      if (!user) throw new NotFoundError('This API key does not exist.');
      return user;
    });
  };
}
