import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { auditSourceOf, principalOf, problems } from '@baret/platform';
import type { IdentityCommands } from '../commands.js';

const bearer = [{ bearer: [] }];
const SettingsSchema = Type.Object({ require_email_verification: Type.Boolean({ description: 'Unverified accounts may log in but not start an analysis' }) });

/** Identity's settings an admin reads and changes (issue 29). */
export function identitySettingsRoutes(instance: FastifyInstance, deps: { commands: IdentityCommands }): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/settings',
    { preHandler: app.requireAdmin, schema: { tags: ['admin'], summary: 'Account settings', security: bearer, response: { 200: SettingsSchema, ...problems(401, 403) } } },
    async () => deps.commands.settings(),
  );
  app.put(
    '/admin/settings',
    {
      preHandler: app.requireAdmin,
      schema: { tags: ['admin'], summary: 'Change account settings', security: bearer, body: Type.Partial(SettingsSchema, { additionalProperties: false }), response: { 200: SettingsSchema, ...problems(400, 401, 403) } },
    },
    async (request) => deps.commands.changeSettings(request.body, principalOf(request).userId, auditSourceOf(request, principalOf(request).userId)),
  );
}
